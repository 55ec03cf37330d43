#!/bin/bash
# Writes the LaneSegNet fixtures of tests/data/lanesegnet/ from the ORIGINAL LaneSegNet (the
# reference archive beside this checkout, on the original baseline's stack and Debian's torch
# 1.13, with the v2.x devkit, one thread a process); tests/data/lanesegnet/README.md describes
# the files:
#
#   bash scripts/make_lanesegnet_fixtures.sh [OUT_DIR]      # default tests/data/lanesegnet
#
# Environment: as scripts/lanesegnet_fixtures.py (OLV2_REFERENCE_DIR, OLV2_ORIGINAL_DIR,
# OLV2_FIXTURES, OLV2_LANESEGNET_SOURCES, OLV2_LANESEGNET_DIR, OLV2_DEVKIT_DIR). The reference's
# setup.sh is run first when the original is not extracted, after Debian's python3-torchvision,
# which mmcv's runner imports; the devkit (openlanev2 2.1.0 and similaritymeasures 0.6.0, which
# LaneSegNet's dataset module imports) is installed with pip into OLV2_DEVKIT_DIR when missing,
# without dependencies (its pins would replace Debian's numpy, scipy and shapely). The BEV is
# checked against tests/data/toponet/ (README: "Training step"), which must be in place.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/tests/data/lanesegnet}
reference=${OLV2_REFERENCE_DIR:-$root/../shared/reference/original}
original_dir=${OLV2_ORIGINAL_DIR:-/tmp/olv2-original}
devkit_dir=${OLV2_DEVKIT_DIR:-/tmp/olv2-devkit2}
if ! dpkg-query -W -f='${Status}' python3-torchvision 2>/dev/null | grep -q "ok installed"; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends python3-torchvision
fi
if [[ ! -f $original_dir/.extracted ]]; then
  OLV2_ORIGINAL_DIR=$original_dir bash "$reference/setup.sh"
fi
if [[ ! -d $devkit_dir/openlanev2/lanesegment || ! -d $devkit_dir/similaritymeasures ]]; then
  /usr/bin/python3 -m pip install -q --break-system-packages --no-deps --target "$devkit_dir" \
    openlanev2==2.1.0 similaritymeasures==0.6.0
fi
export OLV2_ORIGINAL_DIR=$original_dir OLV2_DEVKIT_DIR=$devkit_dir OMP_NUM_THREADS=1
fixtures=(/usr/bin/python3 "$root/scripts/lanesegnet_fixtures.py" --dir "$out" --threads 1)
mkdir -p "$out"

"${fixtures[@]}" shapes
"${fixtures[@]}" inputs
"${fixtures[@]}" probe
"${fixtures[@]}" train one_frame
"${fixtures[@]}" train batch_two
"${fixtures[@]}" train init_one_frame
"${fixtures[@]}" test
"${fixtures[@]}" pipeline
ls -l "$out"
