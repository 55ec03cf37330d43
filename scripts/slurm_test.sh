#!/bin/bash
# Scores a checkpoint on a SLURM cluster, as mmdet's tools/slurm_test.sh:
#
#   [GPUS=8] [GPUS_PER_NODE=8] [CPUS_PER_TASK=5] [SRUN_ARGS=...] \
#       scripts/slurm_test.sh PARTITION JOB_NAME CONFIG CHECKPOINT [test_ds args...]
#
# runs `test_ds CONFIG CHECKPOINT --launcher slurm [args...]` as GPUS ranks of one srun job
# step through scripts/slurm_launch.sh (how srun is called, GPUS_PER_NODE=0, TASKS_PER_NODE);
# each rank predicts its shard and rank 0 writes what the arguments ask for (--eval, --out,
# ...). TEST_DS names the program (default build/bin/test_ds of this checkout).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if [[ $# -lt 4 ]]; then
  echo "usage: $0 PARTITION JOB_NAME CONFIG CHECKPOINT [test_ds args...]" >&2
  exit 2
fi
partition=$1 job_name=$2 config=$3 checkpoint=$4
shift 4
test_ds="${TEST_DS:-$root/build/bin/test_ds}"
if ! command -v "$test_ds" >/dev/null; then
  echo "$0: $test_ds is not an executable (build it, or set TEST_DS)" >&2
  exit 2
fi
exec bash "$root/scripts/slurm_launch.sh" "$partition" "$job_name" "$test_ds" "$config" \
  "$checkpoint" --launcher slurm "$@"
