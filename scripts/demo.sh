#!/usr/bin/env bash
# The main job on a fresh machine: install, build, generate synthetic OpenLane-V2 data (train,
# val and an unannotated test split), then train and validate the demo model on it (logs and
# checkpoints in work_dirs/demo).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DOLV2_SOURCE_REGEX=
cmake --build build -j2 --target train_ds test_ds make_synthetic_data
rm -rf data/synthetic
build/bin/make_synthetic_data --out-dir data/synthetic --test-frames 16
build/bin/train_ds configs/demo.yaml "$@"
