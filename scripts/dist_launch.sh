#!/bin/bash
# Starts N data-parallel processes of a program (train_ds or test_ds) on this node; what
# scripts/dist_train.sh and scripts/dist_test.sh run:
#
#   scripts/dist_launch.sh PROGRAM [--nnodes M --node-rank I --master-addr HOST] CONFIG N [args...]
#
# runs `PROGRAM CONFIG --launcher pytorch [args...]` as the N ranks of node I (0..M-1; by
# default one node, I = 0, HOST = 127.0.0.1): ranks I*N .. I*N+N-1 of M*N. On several nodes run
# it on every node with the same M, HOST (node 0's address, reachable from every node) and
# MASTER_PORT (then required: the nodes must agree on it). The
# launcher is the first of these that applies (DIST_LAUNCHER=torchrun|venv|wrapper|self forces
# one and probes nothing: set it when starting several nodes of one run, so that all of them
# use the same). A torchrun's rendezvous store must speak the protocol of the program's LibTorch (a
# LibTorch 2 client cannot talk to a torch 1.x store), so `PROGRAM --version` decides between 2
# and 3:
#   1. torchrun: a `torchrun` on PATH that can start one process (Debian's python3-torch
#      installs one that cannot, see scripts/torchrun.py);
#   2. venv: the torchrun of the project's .venv (PyTorch 2.11), for a program built against
#      LibTorch 2;
#   3. wrapper: scripts/torchrun.py under /usr/bin/python3 (Debian's torch 1.13), when that
#      imports torch.distributed.run and the program is not built against LibTorch 2;
#   4. self: this script starts one child per rank with torchrun's environment (RANK,
#      WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT), waits, and when a
#      rank fails stops the others.
#
# Environment: MASTER_PORT (default on one node: a free port), OMP_NUM_THREADS (default max(1, cores / N)),
# GLOO_SOCKET_IFNAME (the interface Gloo uses; default: the one on the route to HOST).
# Exit status: 0 when every rank succeeded; 2 for a bad invocation. Through torchrun (1 and 2)
# torchrun's: 1 when a rank failed. Self-launched: the status of the first rank that failed
# (128 + signal when a signal ended it), or 128 + signal when this script was interrupted.
set -euo pipefail

usage() {
  echo "usage: $0 PROGRAM [--nnodes M --node-rank I --master-addr HOST] CONFIG N [args...]" >&2
  exit 2
}

[[ $# -ge 1 ]] || usage
program=$1
shift

nnodes=1
node_rank=0
master_addr=127.0.0.1
while [[ $# -gt 0 && $1 == --* ]]; do
  [[ $# -ge 2 ]] || usage
  case "$1" in
    --nnodes) nnodes=$2 ;;
    --node-rank | --node_rank) node_rank=$2 ;;
    --master-addr | --master_addr) master_addr=$2 ;;
    *) usage ;;
  esac
  shift 2
done
[[ $nnodes =~ ^[1-9][0-9]*$ && $node_rank =~ ^[0-9]+$ ]] || usage
if ((node_rank >= nnodes)); then
  echo "$0: --node-rank $node_rank must be below --nnodes $nnodes" >&2
  exit 2
fi
if ((nnodes > 1)) && [[ -z ${MASTER_PORT:-} ]]; then
  echo "$0: with --nnodes $nnodes set MASTER_PORT, the same on every node" >&2
  exit 2
fi

[[ $# -ge 2 ]] || usage
config=$1
nprocs=$2
shift 2
[[ $nprocs =~ ^[1-9][0-9]*$ ]] || usage

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if ! program_path="$(command -v "$program")"; then
  echo "$0: $program is not an executable (build it)" >&2
  exit 2
fi

# Binding port 0 makes the kernel pick a free port; rank 0 binds it again moments later.
free_port() {
  local python
  for python in /usr/bin/python3 python3; do
    if command -v "$python" >/dev/null 2>&1 &&
      "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null; then
      return
    fi
  done
  # Without Python: a random port above the usual ephemeral range's start.
  echo $((32768 + RANDOM % 28000))
}

port="${MASTER_PORT:-$(free_port)}"
cores="$(nproc)"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$((cores / nprocs > 0 ? cores / nprocs : 1))}"

# A launch of one process running `true` tells a working torchrun from a broken one. It takes a
# free port of its own: on MASTER_PORT (or on --standalone's fixed 29400 in torch 1.x) it would
# race the probe of another node started on this host at the same moment, and the loser would
# pick another launcher than the winner.
torchrun_works() {
  command -v torchrun >/dev/null 2>&1 &&
    timeout 60 torchrun --nproc_per_node 1 --master_addr 127.0.0.1 --master_port "$(free_port)" \
      --monitor_interval 0.1 --no_python true >/dev/null 2>&1
}

venv_works() {
  [[ ${libtorch_major:-0} -ge 2 && -x $root/.venv/bin/torchrun ]]
}

wrapper_works() {
  [[ ${libtorch_major:-0} -lt 2 && -x /usr/bin/python3 ]] &&
    /usr/bin/python3 -c 'import torch.distributed.run' 2>/dev/null
}

launcher="${DIST_LAUNCHER:-}"
if [[ -z $launcher ]]; then
  libtorch_major="$(timeout 20 "$program_path" --version 2>/dev/null |
    sed -n 's/.*LibTorch \([0-9]*\)\..*/\1/p' | head -n 1 || true)"
  if torchrun_works; then
    launcher=torchrun
  elif venv_works; then
    launcher=venv
  elif wrapper_works; then
    launcher=wrapper
  else
    launcher=self
  fi
fi

torchrun_args=()
if ((nnodes > 1)); then torchrun_args=(--nnodes "$nnodes" --node_rank "$node_rank"); fi
torchrun_args+=(--nproc_per_node "$nprocs" --master_addr "$master_addr" --master_port "$port"
  --no_python "$program_path" "$config" --launcher pytorch "$@")
echo "$0: $nprocs ranks via $launcher (node $node_rank of $nnodes), MASTER_ADDR=$master_addr," \
  "MASTER_PORT=$port, OMP_NUM_THREADS=$OMP_NUM_THREADS" >&2
case "$launcher" in
  torchrun) exec torchrun "${torchrun_args[@]}" ;;
  venv) exec "$root/.venv/bin/torchrun" "${torchrun_args[@]}" ;;
  wrapper) exec /usr/bin/python3 "$root/scripts/torchrun.py" "${torchrun_args[@]}" ;;
  self) ;;
  *)
    echo "$0: DIST_LAUNCHER must be torchrun, venv, wrapper or self, not '$launcher'" >&2
    exit 2
    ;;
esac

declare -A rank_of=()  # pid -> rank, for the ranks still running
groups=()              # every rank's process group (the rank and anything it started)

# Sends signal $1 to every rank's process group, SIGKILL to what is left after 10 s; reaps all.
stop_ranks() {
  local group tick alive
  for group in "${groups[@]}"; do kill -s "$1" -- "-$group" 2>/dev/null || true; done
  for ((tick = 0; tick < 100; tick++)); do
    alive=0
    for group in "${groups[@]}"; do
      if kill -0 -- "-$group" 2>/dev/null; then alive=1; fi
    done
    if ((alive == 0)); then break; fi
    sleep 0.1
  done
  for group in "${groups[@]}"; do kill -s KILL -- "-$group" 2>/dev/null || true; done
  wait || true
}

on_signal() {
  trap '' INT TERM HUP
  echo "$0: got SIG$1, stopping the ranks" >&2
  stop_ranks "$1"
  exit $((128 + $(kill -l "$1")))
}
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
trap 'on_signal HUP' HUP

# Job control puts each rank in a process group of its own, so stopping a rank stops its
# children too, a Ctrl-C reaches the ranks once (through on_signal), and, unlike without job
# control, the ranks do not start with SIGINT ignored. Ranks in the background read no stdin.
set -m
for ((rank = 0; rank < nprocs; rank++)); do
  (
    export RANK=$((node_rank * nprocs + rank)) WORLD_SIZE=$((nnodes * nprocs))
    export LOCAL_RANK=$rank LOCAL_WORLD_SIZE=$nprocs MASTER_ADDR=$master_addr MASTER_PORT=$port
    exec "$program_path" "$config" --launcher pytorch "$@" </dev/null
  ) &
  rank_of[$!]=$rank
  groups+=($!)
done
set +m

# `wait -n -p` reports each rank as it exits; the first failure stops the rest.
while ((${#rank_of[@]} > 0)); do
  finished=""
  status=0
  wait -n -p finished "${!rank_of[@]}" || status=$?
  rank=${rank_of[$finished]}
  unset "rank_of[$finished]"
  if ((status != 0)); then
    echo "$0: rank $rank exited with status $status, stopping the other ranks" >&2
    trap '' INT TERM HUP
    stop_ranks TERM
    exit "$status"
  fi
done
# Anything a rank started and left behind goes with the run.
stop_ranks TERM
