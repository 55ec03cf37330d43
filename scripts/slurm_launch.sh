#!/bin/bash
# Starts PROGRAM as the ranks of a SLURM job step, as mmdet's tools/slurm_train.sh and
# tools/slurm_test.sh start theirs; scripts/slurm_train.sh and scripts/slurm_test.sh run it:
#
#   scripts/slurm_launch.sh PARTITION JOB_NAME PROGRAM [program args...]
#
# runs `srun -p PARTITION --job-name=JOB_NAME --gres=gpu:GPUS_PER_NODE --ntasks=GPUS
# --ntasks-per-node=TASKS_PER_NODE --cpus-per-task=CPUS_PER_TASK --kill-on-bad-exit=1 SRUN_ARGS
# PROGRAM [program args...]`, the program arguments including `--launcher slurm`. The
# environment, with mmdet's defaults:
#   GPUS           ranks in all (8), one a GPU;
#   GPUS_PER_NODE  GPUs a node (8); 0 on a cluster without GPUs: no --gres, and the ranks a node
#                  are TASKS_PER_NODE's, else SLURM's choice (no --ntasks-per-node);
#   TASKS_PER_NODE ranks a node (default GPUS_PER_NODE);
#   CPUS_PER_TASK  CPUs a rank (5);
#   SRUN_ARGS      more srun options, split at white space (e.g. "--time=1-0 --quotatype=auto").
# PROGRAM must be at the same path on every node (a shared file system). The exit status is
# srun's: with --kill-on-bad-exit a failing rank ends the others.
set -euo pipefail

if [[ $# -lt 3 ]]; then
  echo "usage: $0 PARTITION JOB_NAME PROGRAM [program args...]" >&2
  exit 2
fi
partition=$1 job_name=$2
shift 2

gpus=${GPUS:-8}
gpus_per_node=${GPUS_PER_NODE:-8}
cpus_per_task=${CPUS_PER_TASK:-5}
tasks_per_node=${TASKS_PER_NODE:-}
if [[ -z $tasks_per_node && $gpus_per_node != 0 ]]; then tasks_per_node=$gpus_per_node; fi

# `name value`: exits 2 unless value is a whole number, at least `minimum`.
require_count() {
  local name=$1 value=$2 minimum=$3
  if ! [[ $value =~ ^[0-9]+$ ]] || ((10#$value < minimum)); then
    echo "$0: $name=$value: expected a whole number of at least $minimum" >&2
    exit 2
  fi
}
require_count GPUS "$gpus" 1
require_count GPUS_PER_NODE "$gpus_per_node" 0
require_count CPUS_PER_TASK "$cpus_per_task" 1
if [[ -n $tasks_per_node ]]; then require_count TASKS_PER_NODE "$tasks_per_node" 1; fi
if ! command -v srun >/dev/null; then
  echo "$0: no srun on PATH (SLURM's client: run this on the cluster's login node)" >&2
  exit 2
fi

read -r -a srun_args <<<"${SRUN_ARGS:-}"
options=(-p "$partition" --job-name="$job_name")
if [[ $gpus_per_node != 0 ]]; then options+=(--gres="gpu:$gpus_per_node"); fi
options+=(--ntasks="$gpus")
if [[ -n $tasks_per_node ]]; then options+=(--ntasks-per-node="$tasks_per_node"); fi
options+=(--cpus-per-task="$cpus_per_task" --kill-on-bad-exit=1)

set -x
exec srun "${options[@]}" "${srun_args[@]}" "$@"
