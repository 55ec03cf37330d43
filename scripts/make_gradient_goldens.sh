#!/bin/bash
# Writes the gradient goldens of tests/data/gradients/ from the ORIGINAL Python stack (the
# reference beside this checkout, on Debian's torch 1.13, one thread a process):
#
#   bash scripts/make_gradient_goldens.sh [--model baseline|baseline_large] [OUT_DIR]
#                                      # default: both models, tests/data/gradients
#
#   Baseline (--model baseline):
#   two_frames.pt           the input: the fixture frame and a second one (original_gradients.py
#                           --make-two-frames)
#   original_one_frame.pt   one process, the first frame alone
#   original_batch_two.pt   one process, both frames in one batch
#   original_two_ranks.pt   two ranks under torchrun, one frame each, MMDistributedDataParallel
#
#   The reduced BaselineLarge (--model baseline_large), on its fixture frame:
#   original_large_one_frame.pt   one process; tensors of at most 4096 elements whole, larger
#                                 ones with a sample of 512, to keep the file near 1.3 MB
#
# Environment: as scripts/original_gradients.py (OLV2_REFERENCE_DIR, OLV2_ORIGINAL_DIR,
# OLV2_FIXTURES). Debian's python3-torchvision (mmcv's runner imports it) is installed when
# missing, and the reference's setup.sh is run when the original is not extracted.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
models=(baseline baseline_large)
if [[ ${1:-} == --model ]]; then
  case ${2:-} in
    baseline | baseline_large) models=("$2") ;;
    *) echo "--model baseline|baseline_large, not '${2:-}'" >&2; exit 2 ;;
  esac
  shift 2
fi
out=${1:-$root/tests/data/gradients}
reference=${OLV2_REFERENCE_DIR:-$root/../shared/reference/original}
original_dir=${OLV2_ORIGINAL_DIR:-/tmp/olv2-original}
if ! dpkg-query -W -f='${Status}' python3-torchvision 2>/dev/null | grep -q "ok installed"; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends python3-torchvision
fi
if [[ ! -f $original_dir/.extracted ]]; then
  OLV2_ORIGINAL_DIR=$original_dir bash "$reference/setup.sh"
fi
export OLV2_ORIGINAL_DIR=$original_dir OMP_NUM_THREADS=1
python=/usr/bin/python3
script=$root/scripts/original_gradients.py
mkdir -p "$out"

baseline_goldens() {
  local one_frame
  one_frame=$(mktemp --suffix .pt)
  "$python" "$script" --make-two-frames "$out/two_frames.pt"
  "$python" - "$out/two_frames.pt" "$one_frame" <<'PY'
import sys, torch
frames = torch.load(sys.argv[1])
first = {k: v[:1] for k, v in frames.items() if '.' not in k}
first.update({k[:-2]: v for k, v in frames.items() if k.endswith('.0')})
torch.save(first, sys.argv[2])
PY
  "$python" "$script" --input "$one_frame" --golden --out "$out/original_one_frame.pt"
  rm -f "$one_frame"
  "$python" "$script" --input "$out/two_frames.pt" --golden --out "$out/original_batch_two.pt"
  "$python" "$root/scripts/torchrun.py" --nproc_per_node 2 "$script" \
    --input "$out/two_frames.pt" --golden --out "$out/original_two_ranks.pt" --launcher pytorch
}

# The fixture frame and weights as they are; the script checks the losses against the fixtures'.
baseline_large_goldens() {
  "$python" "$script" --model baseline_large --golden --whole-limit 4096 --sample-size 512 \
    --out "$out/original_large_one_frame.pt"
}

for model in "${models[@]}"; do
  "${model}_goldens"
done
ls -l "$out"
