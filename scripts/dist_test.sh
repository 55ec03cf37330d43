#!/bin/bash
# Scores a checkpoint with N data-parallel processes on this node, as mmdet's tools/dist_test.sh:
#
#   scripts/dist_test.sh [--nnodes M --node-rank I --master-addr HOST] CONFIG CHECKPOINT N \
#       [test_ds args...]
#
# runs `test_ds CONFIG CHECKPOINT --launcher pytorch [args...]` as the N ranks of node I through
# scripts/dist_launch.sh (the launchers, several nodes, the environment, the exit status); each
# rank predicts its shard and rank 0 writes what the arguments ask for (--eval, --out, ...).
# TEST_DS names the program (default build/bin/test_ds of this checkout).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

node_options=()
while [[ $# -ge 2 && $1 == --* ]]; do
  node_options+=("$1" "$2")
  shift 2
done
if [[ $# -lt 3 ]]; then
  echo "usage: $0 [--nnodes M --node-rank I --master-addr HOST] CONFIG CHECKPOINT N [test_ds args...]" >&2
  exit 2
fi
config=$1 checkpoint=$2 nprocs=$3
shift 3
test_ds="${TEST_DS:-$root/build/bin/test_ds}"
if ! command -v "$test_ds" >/dev/null; then
  echo "$0: $test_ds is not an executable (build it, or set TEST_DS)" >&2
  exit 2
fi
exec bash "$root/scripts/dist_launch.sh" "$test_ds" "${node_options[@]}" "$config" "$nprocs" \
  "$checkpoint" "$@"
