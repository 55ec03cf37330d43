#!/usr/bin/env bash
# Installs the dependencies, builds (Release) and runs every test: the project's one test command.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DOLV2_SOURCE_REGEX=
cmake --build build -j2
ctest --test-dir build -j2 --output-on-failure
