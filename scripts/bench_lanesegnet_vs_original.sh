#!/bin/bash
# The LaneSegNet training step of this project and of the original LaneSegNet, side by side:
#
#   scripts/bench_lanesegnet_vs_original.sh [--models "reduced full"] [--threads 2]
#                                           [--warmup W] [--steps S]
#
# Models (default "reduced full"; any of the four, e.g. --models "bucket_reduced bucket_full"):
#   reduced         LaneSegNet's parity fixtures' model and weights
#                   (tests/data/lanesegnet/README.md, configs/fixtures/lanesegnet_reduced.yaml)
#   full            its subset-A model (configs/lanesegnet_r50_8x1_24e_olv2_subset_A.yaml) without
#                   the pretrained backbone, with the original's seeded initialisation
#   bucket_reduced  the same two of the Map Element Bucket model (LaneSegNetMapElementBucket):
#   bucket_full     tests/data/lanesegnet_mapele_bucket/README.md and
#                   configs/fixtures/lanesegnet_mapele_bucket_reduced.yaml; the subset-A
#                   configs/lanesegnet_r50_8x1_24e_olv2_subset_A_mapele_bucket.yaml
# All on frame 0 of tests/data/gradients/two_frames.pt (7 cameras, 128x160) with the model's
# ground truth of that frame: LaneSegNet's (tests/data/lanesegnet/: 5 lane segments and 2
# crossings) or the bucket's (tests/data/lanesegnet_mapele_bucket/: the same 5 lane segments
# with their lane x TE adjacency, two_frames.pt's 3 traffic elements with the front camera's
# crop_shape, and 3 areas of 20 points, 2 crossings and a road boundary); the lane segments'
# instance masks at the model's BEV, 25x50 (the fixture's inputs.pt) or 100x200 (its
# pipeline_expected.pt).
# `scripts/bench_lanesegnet_original.py prepare` first writes, into a temporary folder, that
# frame in the fixture input format and each model's weights; then, per model, the original
# (`bench_lanesegnet_original.py time`) and ours (`bench_train_step --input`) run one after the
# other (never at the same time) on those files, with the same threads and procedure:
# forward_train + loss sum + backward + AdamW(lr 1e-4, weight decay 1e-4) step + zero_grad,
# dropout as configured, fp32, `--warmup` untimed and `--steps` timed steps (default 2 and 5 for
# the reduced models, 1 and 2 for the full ones), median. Prints a table of both (median time
# per step and per stage, peak RSS) and their ratio, then one JSON line per model: {"model",
# "threads", "ours", "original", "step_ratio", "rss_ratio"} with ratio = ours / original. The
# full LaneSegNet's original peaks near 9 GB (the mask branch at 100x200); the full bucket has
# the same mask branch, and the TE and area heads besides.
#
# Environment: as scripts/bench_vs_original.sh (OLV2_REFERENCE_DIR, OLV2_ORIGINAL_DIR,
# OLV2_FIXTURES, BENCH, ORIGINAL_PYTHON), and scripts/lanesegnet_fixtures.py's
# OLV2_LANESEGNET_SOURCES, OLV2_LANESEGNET_DIR and OLV2_DEVKIT_DIR. Both sides must run on the
# same torch: the original on /usr/bin/python3 (Debian's 1.13) beside a build on Debian's
# LibTorch, or on a torch 2.11 venv (see scripts/bench_vs_original.sh) beside the default build.
# The original LaneSegNet imports torchvision (Debian's python3-torchvision) and the v2.x devkit
# (openlanev2 2.1.0 and similaritymeasures 0.6.0 in OLV2_DEVKIT_DIR); as in
# scripts/make_lanesegnet_fixtures.sh, the devkit is installed there with pip when missing.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
reference=${OLV2_REFERENCE_DIR:-$root/../shared/reference/original}
fixtures=${OLV2_FIXTURES:-$root/../shared/fixtures}
bench=${BENCH:-$root/build/bin/bench_train_step}
original_dir=${OLV2_ORIGINAL_DIR:-/tmp/olv2-original}
original_python=${ORIGINAL_PYTHON:-/usr/bin/python3}
devkit_dir=${OLV2_DEVKIT_DIR:-/tmp/olv2-devkit2}
models="reduced full"
threads=2
warmup=
steps=

usage() {
  sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
while [[ $# -gt 0 ]]; do
  case $1 in
    --models) models=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    *) usage ;;
  esac
done
for model in $models; do
  case $model in
    reduced | full | bucket_reduced | bucket_full) ;;
    *) usage ;;
  esac
done
[[ -x $bench ]] || { echo "$0: $bench not found: build the project first" >&2; exit 2; }
if [[ ! -f $original_dir/.extracted ]]; then
  OLV2_ORIGINAL_DIR=$original_dir bash "$reference/setup.sh"
fi
if [[ ! -d $devkit_dir/openlanev2/lanesegment || ! -d $devkit_dir/similaritymeasures ]]; then
  "$original_python" -m pip install -q --break-system-packages --no-deps --target "$devkit_dir" \
    openlanev2==2.1.0 similaritymeasures==0.6.0
fi
export OLV2_REFERENCE_DIR=$reference OLV2_ORIGINAL_DIR=$original_dir OLV2_FIXTURES=$fixtures
export OLV2_DEVKIT_DIR=$devkit_dir
export OMP_NUM_THREADS=$threads

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
original=("$original_python" "$root/scripts/bench_lanesegnet_original.py")
for model in $models; do
  echo "$model: writing the input and weights ..." >&2
  "${original[@]}" prepare --dir "$work" --model "$model" --threads "$threads"
done
for model in $models; do
  # bench_train_step builds every config with img_backbone.init_cfg = null: no download.
  case $model in
    reduced) config=$root/configs/fixtures/lanesegnet_reduced.yaml ;;
    full) config=$root/configs/lanesegnet_r50_8x1_24e_olv2_subset_A.yaml ;;
    bucket_reduced) config=$root/configs/fixtures/lanesegnet_mapele_bucket_reduced.yaml ;;
    bucket_full) config=$root/configs/lanesegnet_r50_8x1_24e_olv2_subset_A_mapele_bucket.yaml ;;
  esac
  if [[ $model == *reduced ]]; then
    model_warmup=${warmup:-2} model_steps=${steps:-5}
  else
    model_warmup=${warmup:-1} model_steps=${steps:-2}
  fi
  echo "$model: the original ..." >&2
  "${original[@]}" time --dir "$work" --model "$model" --threads "$threads" \
    --warmup "$model_warmup" --steps "$model_steps" | tail -n 1 >>"$work/results"
  echo "$model: ours ..." >&2
  "$bench" "$config" --input "$work/${model}_input.pt" \
    --state-dict "$work/${model}_state_dict.pt" --mode train --precision fp32 \
    --threads "$threads" --warmup "$model_warmup" --steps "$model_steps" \
    | tail -n 1 >>"$work/results"
done

/usr/bin/python3 "$root/scripts/bench_side_by_side.py" report "$work/results" LaneSegNet
