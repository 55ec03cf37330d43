#!/bin/bash
# Writes the LaneSegNet fixtures of tests/data/lanesegnet/ from the ORIGINAL LaneSegNet (the
# reference archive beside this checkout, on the original baseline's stack and Debian's torch
# 1.13, with the v2.x devkit, one thread a process); tests/data/lanesegnet/README.md describes
# the files:
#
#   bash scripts/make_lanesegnet_fixtures.sh [OUT_DIR]      # default tests/data/lanesegnet
#
# With --model mapele_bucket first, the fixtures of LaneSegNet's Map Element Bucket model
# (tests/data/lanesegnet_mapele_bucket/README.md):
#
#   bash scripts/make_lanesegnet_fixtures.sh --model mapele_bucket [OUT_DIR]
#
# whose BEV, TE outputs, matchings and losses are checked against TopoNet's fixtures made on
# this machine (scripts/toponet_fixtures.py inputs, train, test into a temporary folder; the
# last bits depend on the CPU's vector unit), or against OLV2_TOPONET_FIXTURES when set.
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
model=lanesegnet
if [[ ${1:-} == --model ]]; then
  model=$2
  shift 2
fi
case $model in
  lanesegnet) out=${1:-$root/tests/data/lanesegnet} ;;
  mapele_bucket) out=${1:-$root/tests/data/lanesegnet_mapele_bucket} ;;
  *) echo "unknown model $model (lanesegnet, mapele_bucket)" >&2; exit 2 ;;
esac
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
fixtures=(/usr/bin/python3 "$root/scripts/lanesegnet_fixtures.py" --model "$model" --dir "$out"
          --threads 1)
mkdir -p "$out"

if [[ $model == mapele_bucket ]]; then
  if [[ -z ${OLV2_TOPONET_FIXTURES:-} ]]; then
    toponet=$(mktemp -d)
    trap 'rm -rf "$toponet"' EXIT
    for step in inputs "train one_frame" "train batch_two" test; do
      # shellcheck disable=SC2086  # the step's words are its arguments
      /usr/bin/python3 "$root/scripts/toponet_fixtures.py" --dir "$toponet" --threads 1 $step
    done
    export OLV2_TOPONET_FIXTURES=$toponet
  fi
  "${fixtures[@]}" shapes
  "${fixtures[@]}" inputs
  "${fixtures[@]}" probe
  "${fixtures[@]}" train one_frame
  "${fixtures[@]}" train batch_two
  "${fixtures[@]}" test
  "${fixtures[@]}" pipeline
  ls -l "$out"
  exit 0
fi

"${fixtures[@]}" shapes
"${fixtures[@]}" inputs
"${fixtures[@]}" probe
"${fixtures[@]}" train one_frame
"${fixtures[@]}" train batch_two
"${fixtures[@]}" train init_one_frame
"${fixtures[@]}" test
"${fixtures[@]}" pipeline
ls -l "$out"
