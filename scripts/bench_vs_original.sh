#!/bin/bash
# The Baseline training step of this project and of the original Python stack, side by side:
#
#   scripts/bench_vs_original.sh [--scales "1 2"] [--threads 2] [--mode train|eval]
#                                [--precision fp32|bf16] [--warmup 2] [--steps 5] [--config C]
#
# For each scale it runs the original's `bench_original.py` and then our
# `bench_train_step --input` one after the other (never at the same time), with the same
# threads, fixture input and weights, resolution and procedure (forward + losses + backward +
# AdamW step, dropout as configured; or forward_test with --mode eval; ours in fp32, or under
# bf16 autocast with --precision bf16, the original always in fp32), and prints a table of
# both (median time per step and per stage, peak RSS) and their ratio, then one JSON line per
# scale: {"scale", "threads", "ours", "original", "step_ratio", "rss_ratio"} with ratio =
# ours / original.
#
# Environment: OLV2_REFERENCE_DIR (the original's benchmark folder; default
# ../shared/reference/original beside this checkout), OLV2_ORIGINAL_DIR (where its setup.sh
# extracted the original; setup.sh is run once when it has not been), OLV2_FIXTURES (default
# ../shared/fixtures), BENCH (default build/bin/bench_train_step of this checkout; nothing is
# built here), ORIGINAL_PYTHON (default /usr/bin/python3, Debian's torch 1.13; for the original
# on PyTorch 2.11, a Python that sees Debian's packages and has torch 2.11.0 and torchvision
# 0.26.0 of its own: `/usr/bin/python3 -m venv --system-site-packages V && V/bin/pip install
# torch==2.11.0 && V/bin/pip install --no-deps torchvision==0.26.0`, then ORIGINAL_PYTHON=V/bin/python).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
reference=${OLV2_REFERENCE_DIR:-$root/../shared/reference/original}
fixtures=${OLV2_FIXTURES:-$root/../shared/fixtures}
bench=${BENCH:-$root/build/bin/bench_train_step}
original_dir=${OLV2_ORIGINAL_DIR:-/tmp/olv2-original}
original_python=${ORIGINAL_PYTHON:-/usr/bin/python3}
scales="1 2"
threads=2
mode=train
precision=fp32
warmup=2
steps=5
config=$root/configs/fixtures/baseline.yaml

usage() {
  sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
while [[ $# -gt 0 ]]; do
  case $1 in
    --scales) scales=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --precision) precision=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --config) config=$2; shift 2 ;;
    *) usage ;;
  esac
done
[[ $mode == train || $mode == eval ]] || usage
[[ $precision == fp32 || $precision == bf16 ]] || usage
[[ -x $bench ]] || { echo "$0: $bench not found: build the project first" >&2; exit 2; }
[[ -f $reference/bench_original.py ]] || { echo "$0: no bench_original.py in $reference (set OLV2_REFERENCE_DIR)" >&2; exit 2; }
if [[ ! -f $original_dir/.extracted ]]; then
  OLV2_ORIGINAL_DIR=$original_dir bash "$reference/setup.sh"
fi

results=$(mktemp)
trap 'rm -f "$results"' EXIT
for scale in $scales; do
  echo "scale $scale: the original ..." >&2
  OLV2_ORIGINAL_DIR=$original_dir OLV2_FIXTURES=$fixtures OMP_NUM_THREADS=$threads \
    "$original_python" "$reference/bench_original.py" --mode "$mode" --threads "$threads" \
    --warmup "$warmup" --steps "$steps" --scale "$scale" | tail -n 1 >>"$results"
  echo "scale $scale: ours ..." >&2
  OMP_NUM_THREADS=$threads "$bench" "$config" --input "$fixtures/baseline_input.pt" \
    --state-dict "$fixtures/baseline_state_dict.pt" --mode "$mode" --precision "$precision" \
    --threads "$threads" \
    --warmup "$warmup" --steps "$steps" --scale "$scale" | tail -n 1 >>"$results"
done

/usr/bin/python3 - "$results" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
pairs = [(lines[i], lines[i + 1]) for i in range(0, len(lines), 2)]
stages = ['backbone', 'neck', 'view_transformer', 'heads+losses', 'backward', 'optimizer',
          'forward_test']
for original, ours in pairs:
    o_split, u_split = original['split_median'], ours['split_median']
    print(f"scale {ours['scale']}: input {ours['img']}, ours in {ours['precision']}, "
          f"{ours['threads']} threads, "
          f"{ours['steps']} timed steps after {ours['warmup']}")
    print(f"  {'':22} {'original':>10} {'ours':>10} {'ours/orig':>10}")
    rows = [('step s (median)', original['median_s'], ours['median_s'])]
    rows += [(f'  {k} s', o_split[k], u_split[k]) for k in stages if k in o_split and k in u_split]
    rows.append(('peak RSS MiB', original['peak_rss_mib'], ours['peak_rss_mib']))
    for name, o, u in rows:
        ratio = u / o if o else float('nan')
        print(f"  {name:22} {o:10.3f} {u:10.3f} {ratio:10.2f}")
for original, ours in pairs:
    print(json.dumps({
        'scale': ours['scale'], 'threads': ours['threads'], 'mode': ours['mode'],
        'precision': ours['precision'],
        'ours': {'step_s': ours['median_s'], 'peak_rss_mib': ours['peak_rss_mib'],
                 'split_s': ours['split_median']},
        'original': {'step_s': original['median_s'], 'peak_rss_mib': original['peak_rss_mib'],
                     'split_s': original['split_median']},
        'step_ratio': ours['median_s'] / original['median_s'],
        'rss_ratio': ours['peak_rss_mib'] / original['peak_rss_mib']}))
PY
