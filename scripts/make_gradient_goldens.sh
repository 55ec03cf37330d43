#!/bin/bash
# Writes the gradient goldens of tests/data/gradients/ from the ORIGINAL Python stack (the
# reference beside this checkout, on Debian's torch 1.13, one thread a process):
#
#   bash scripts/make_gradient_goldens.sh [OUT_DIR]      # default tests/data/gradients
#
#   two_frames.pt           the input: the fixture frame and a second one (original_gradients.py
#                           --make-two-frames)
#   original_one_frame.pt   one process, the first frame alone
#   original_batch_two.pt   one process, both frames in one batch
#   original_two_ranks.pt   two ranks under torchrun, one frame each, MMDistributedDataParallel
#
# Environment: as scripts/original_gradients.py (OLV2_REFERENCE_DIR, OLV2_ORIGINAL_DIR,
# OLV2_FIXTURES); the reference's setup.sh is run first when the original is not extracted.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/tests/data/gradients}
reference=${OLV2_REFERENCE_DIR:-$root/../shared/reference/original}
original_dir=${OLV2_ORIGINAL_DIR:-/tmp/olv2-original}
if [[ ! -f $original_dir/.extracted ]]; then
  OLV2_ORIGINAL_DIR=$original_dir bash "$reference/setup.sh"
fi
export OLV2_ORIGINAL_DIR=$original_dir OMP_NUM_THREADS=1
python=/usr/bin/python3
script=$root/scripts/original_gradients.py
mkdir -p "$out"
one_frame=$(mktemp --suffix .pt)
trap 'rm -f "$one_frame"' EXIT

"$python" "$script" --make-two-frames "$out/two_frames.pt"
"$python" - "$out/two_frames.pt" "$one_frame" <<'PY'
import sys, torch
frames = torch.load(sys.argv[1])
first = {k: v[:1] for k, v in frames.items() if '.' not in k}
first.update({k[:-2]: v for k, v in frames.items() if k.endswith('.0')})
torch.save(first, sys.argv[2])
PY
"$python" "$script" --input "$one_frame" --golden --out "$out/original_one_frame.pt"
"$python" "$script" --input "$out/two_frames.pt" --golden --out "$out/original_batch_two.pt"
"$python" "$root/scripts/torchrun.py" --nproc_per_node 2 "$script" --input "$out/two_frames.pt" \
  --golden --out "$out/original_two_ranks.pt" --launcher pytorch
ls -l "$out"
