#!/bin/bash
# Trains on a SLURM cluster, as mmdet's tools/slurm_train.sh:
#
#   [GPUS=8] [GPUS_PER_NODE=8] [CPUS_PER_TASK=5] [SRUN_ARGS=...] \
#       scripts/slurm_train.sh PARTITION JOB_NAME CONFIG WORK_DIR [train_ds args...]
#
# runs `train_ds CONFIG --work-dir=WORK_DIR --launcher slurm [args...]` as GPUS ranks of one
# srun job step through scripts/slurm_launch.sh, which says how srun is called and what
# GPUS_PER_NODE=0 (a cluster without GPUs) and TASKS_PER_NODE change. TRAIN_DS names the
# program (default build/bin/train_ds of this checkout); no Python is needed on the nodes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if [[ $# -lt 4 ]]; then
  echo "usage: $0 PARTITION JOB_NAME CONFIG WORK_DIR [train_ds args...]" >&2
  exit 2
fi
partition=$1 job_name=$2 config=$3 work_dir=$4
shift 4
train_ds="${TRAIN_DS:-$root/build/bin/train_ds}"
if ! command -v "$train_ds" >/dev/null; then
  echo "$0: $train_ds is not an executable (build it, or set TRAIN_DS)" >&2
  exit 2
fi
exec bash "$root/scripts/slurm_launch.sh" "$partition" "$job_name" "$train_ds" "$config" \
  --work-dir="$work_dir" --launcher slurm "$@"
