#!/usr/bin/env bash
# The GPU check rehearsed on the CPU, as CI runs it, and what the rehearsal must show so that the
# GPU machine's one try can be trusted (gpu_bundle/ made beforehand by
# scripts/prepare_gpu_bundle.sh):
#
#   1. where CUDA is unusable, the environment stage stops the check (exit 3), naming why, the
#      driver and torch.version.cuda;
#   2. with a deadline of 150 s, the environment runs and the stages whose estimates no longer
#      fit (the configure and the build first) are recorded as skipped for time, never started;
#   3. a minute into the run, OUT_DIR already holds gpu_check.json with every stage finished by
#      then (what a call cut short would return);
#   4. at the end every stage passed but nccl (skipped: no GPU), the multi-process stages ran
#      through torchrun (PyTorch 2.11's, on PATH), and the 16 GB run logged its memory cap as
#      not applicable on the CPU.
#
#   scripts/rehearse_gpu_check.sh [OUT_DIR]    OUT_DIR: default build-gpu/rehearsal
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build-gpu/rehearsal}
python=${PYTHON:-.venv/bin/python}
fail() { echo "rehearse_gpu_check: $*" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
checks=$(mktemp -d)
trap 'rm -rf "$checks"' EXIT

status=0
CUDA_VISIBLE_DEVICES=-1 "$python" scripts/gpu_check_environment.py --json "$checks/env.json" \
  --links-dir "$checks/links" --require-cuda >/dev/null 2>"$checks/stop" || status=$?
[ "$status" = 3 ] || fail "the environment stage exited $status where CUDA is unusable, not 3"
grep -q 'stopping: CUDA is unusable: .*NVIDIA driver .*torch.version.cuda' "$checks/stop" ||
  fail "the environment stage's stop does not say why, the driver and torch.version.cuda: $(cat "$checks/stop")"
echo "rehearse_gpu_check: where CUDA is unusable the check stops: $(cat "$checks/stop")"

status=0
GPU_CHECK_DEADLINE_S=150 CUDA_VISIBLE_DEVICES=-1 bash scripts/gpu_check.sh "$checks/short" \
  >"$checks/short.log" 2>&1 || status=$?
"$python" - "$checks/short/gpu_check.json" build-gpu/gpu_check/logs "$status" <<'PYEOF'
import json
import os
import sys

stages = json.load(open(sys.argv[1]))["stages"]
outcomes = {s["name"]: s["outcome"] for s in stages}
for_time = [name for name, outcome in outcomes.items() if outcome == "skipped_for_time"]
started = [name for name in for_time if os.path.exists(os.path.join(sys.argv[2], name + ".log"))]
problems = []
if outcomes.get("environment") != "ok":
    problems.append(f"the environment: {outcomes.get('environment')}")
if not {"configure", "build"} <= set(for_time):
    problems.append("the configure and the build were not skipped for time")
if started:
    problems.append(f"skipped for time yet started: {started}")
if any(o not in ("ok", "skipped", "skipped_for_time") for o in outcomes.values()):
    problems.append("a stage failed or timed out")
if len(stages) != 16 or sys.argv[3] != "1":
    problems.append(f"{len(stages)} stages recorded, exit {sys.argv[3]}; expected 16, exit 1")
if problems:
    sys.exit(f"rehearse_gpu_check: with a 150 s deadline: {'; '.join(problems)} ({outcomes})")
print(f"rehearse_gpu_check: with a 150 s deadline {len(for_time)} stages were skipped for time, "
      "none of them started")
PYEOF

CUDA_VISIBLE_DEVICES=-1 bash scripts/gpu_check.sh "$out" &
check=$!
sleep 60
cp "$out/gpu_check.json" "$checks/after_a_minute.json" 2>/dev/null ||
  echo '{"stages": []}' >"$checks/after_a_minute.json"
status=0
wait "$check" || status=$?

"$python" - "$out/gpu_check.json" "$checks/after_a_minute.json" "$status" <<'PYEOF'
import json
import sys

final = json.load(open(sys.argv[1]))
early = json.load(open(sys.argv[2]))
status = int(sys.argv[3])
problems = []
finished_early = [s["name"] for s in early["stages"] if s["outcome"] == "ok"]
if not finished_early:
    problems.append("a minute in, OUT held no finished stage")
outcomes = {s["name"]: s["outcome"] for s in final["stages"]}
for name, outcome in outcomes.items():
    wanted = "skipped" if name == "nccl" else "ok"
    if outcome != wanted:
        problems.append(f"stage {name}: {outcome}, expected {wanted}")
if len(outcomes) != 16:
    problems.append(f"{len(outcomes)} stages recorded, expected 16")
if final.get("launcher") != "torchrun":
    problems.append(f"the rank stages' launcher was {final.get('launcher')}, expected torchrun")
cap = final["runs"].get("baseline_fp16", {}).get("memory_cap") or ""
if "not applicable on the CPU" not in cap:
    problems.append(f"baseline_fp16's memory cap: {cap!r}, expected it logged as not applicable")
for name, run in final["runs"].items():
    if name != "test_ds" and not run.get("steps"):
        problems.append(f"run {name} logged no training step")
if status != 0:
    problems.append(f"gpu_check.sh exited {status}")
print(f"rehearse_gpu_check: a minute in, OUT held {len(early['stages'])} stages "
      f"({', '.join(finished_early)} finished); at the end {len(outcomes)}; launcher "
      f"{final.get('launcher')}")
for problem in problems:
    print(f"rehearse_gpu_check: {problem}", file=sys.stderr)
sys.exit(1 if problems else 0)
PYEOF
