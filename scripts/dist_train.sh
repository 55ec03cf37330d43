#!/bin/bash
# Trains with N data-parallel processes on this node, as mmdet's tools/dist_train.sh:
#
#   scripts/dist_train.sh [--nnodes M --node-rank I --master-addr HOST] CONFIG N [train_ds args...]
#
# runs `train_ds CONFIG --launcher pytorch [args...]` as the N ranks of node I through
# scripts/dist_launch.sh, which says how the ranks start: the launchers, several nodes, the
# environment and the exit status. TRAIN_DS names the program (default build/bin/train_ds of
# this checkout).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
train_ds="${TRAIN_DS:-$root/build/bin/train_ds}"
if ! command -v "$train_ds" >/dev/null; then
  echo "$0: $train_ds is not an executable (build it, or set TRAIN_DS)" >&2
  exit 2
fi
exec bash "$root/scripts/dist_launch.sh" "$train_ds" "$@"
