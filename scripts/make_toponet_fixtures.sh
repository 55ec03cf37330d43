#!/bin/bash
# Writes the TopoNet fixtures of tests/data/toponet/ from the ORIGINAL TopoNet (the reference
# archive beside this checkout, on the original baseline's stack and Debian's torch 1.13, one
# thread a process); tests/data/toponet/README.md describes the files:
#
#   bash scripts/make_toponet_fixtures.sh [OUT_DIR]      # default tests/data/toponet
#
# Environment: as scripts/toponet_fixtures.py (OLV2_REFERENCE_DIR, OLV2_ORIGINAL_DIR,
# OLV2_FIXTURES, OLV2_TOPONET_SOURCES, OLV2_TOPONET_DIR). The reference's setup.sh is run first
# when the original is not extracted, after Debian's python3-torchvision, which TopoNet and
# mmcv's runner import; pyquaternion 0.9.9, which TopoNet's dataset uses for can_bus (pipeline),
# is installed with pip when missing.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/tests/data/toponet}
reference=${OLV2_REFERENCE_DIR:-$root/../shared/reference/original}
original_dir=${OLV2_ORIGINAL_DIR:-/tmp/olv2-original}
if ! dpkg-query -W -f='${Status}' python3-torchvision 2>/dev/null | grep -q "ok installed"; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends python3-torchvision
fi
if ! /usr/bin/python3 -c 'import pyquaternion' 2>/dev/null; then
  /usr/bin/python3 -m pip install -q --break-system-packages --no-deps pyquaternion==0.9.9
fi
if [[ ! -f $original_dir/.extracted ]]; then
  OLV2_ORIGINAL_DIR=$original_dir bash "$reference/setup.sh"
fi
export OLV2_ORIGINAL_DIR=$original_dir OMP_NUM_THREADS=1
fixtures=(/usr/bin/python3 "$root/scripts/toponet_fixtures.py" --dir "$out" --threads 1)
mkdir -p "$out"

"${fixtures[@]}" shapes A
"${fixtures[@]}" shapes B
"${fixtures[@]}" inputs
"${fixtures[@]}" probe
"${fixtures[@]}" train one_frame
"${fixtures[@]}" train batch_two
"${fixtures[@]}" test
"${fixtures[@]}" pipeline
ls -l "$out"
