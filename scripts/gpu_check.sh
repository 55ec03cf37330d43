#!/usr/bin/env bash
# The GPU check: on a machine with an NVIDIA GPU, PyTorch 2.11 (python3), CMake, ninja, nvcc and
# a C++ compiler but no network and none of our Debian packages, builds the project against
# that PyTorch and gpu_bundle/ (made beforehand by scripts/prepare_gpu_bundle.sh) and measures
# what GPU users compare. One call on a 16-core machine ends within 475 s (8 minutes).
#
# The stages, most valuable first, each with its estimate and its time limit on the GPU machine
# (`plan` below; docs/development.md has the estimates beside the rehearsal's measurements):
#
#   environment      nvidia-smi, compiler, CMake, nvcc, ninja, glibc, PyTorch; stops the check
#                    (exit 3) unless PyTorch is 2.11.x and, on the GPU machine, CUDA works
#   configure        CMake against PyTorch's LibTorch and the bundle
#   build            every target a later stage runs, in one call that keeps going past a
#                    failed target
#   isolation        no header or library of the build came from a system copy of a
#                    dependency (scripts/check_build_isolation.sh)
#   version          train_ds --version
#   cuda_tests       ctest -L cuda with OLV2_REQUIRE_CUDA=1: the three models (TopoNet at
#                    fixture size before any full-size run) on CUDA against the CPU, fp16, the
#                    engine's CUDA paths, the memory cap
#   nccl             one rank on NCCL through the launcher chosen once (below): store, process
#                    group, overlapped bucket all-reduce, stop-flag all-reduce, shutdown
#   test_ds          the demo model trained one epoch on CUDA, then test_ds --eval on it
#   gloo_two_ranks   two Gloo ranks on the one GPU (two one-process nodes: each rank's local
#                    rank is 0), CUDA tensors through the bucket sync
#   bench_tflops     the GPU's matrix-product rates
#   baseline_fp16    `baseline`, --use-fp16, 2 frames x 2 accumulated = 6 optimizer steps, then
#                    validation on CUDA, under a 15.5 GiB memory cap (a 16 GB card less the CUDA
#                    context): "fits in 16 GB" is this run passing
#   baseline_large_v100  the V100 recipe (fp16, batch 1, recomputed stages): 24 steps
#   toponet_fp32     TopoNet on subset A at full size, the original's recipe (batch 1, fp32):
#                    8 steps, then validation on CUDA
#   lanesegnet_fp32  LaneSegNet on v2.x lane-segment frames at full size, the original's recipe
#                    (batch 1, fp32): 4 steps, then validation (UniScore, LaneSegNet's mAP) on
#                    CUDA
#   toponet_fp16_recomputed  TopoNet with --use-fp16 and the backbone and BEV stages
#                    recomputed: 4 steps
#   mapele_bucket_fp32  LaneSegNet's Map Element Bucket (lane segments, traffic elements, MapTR
#                    areas) at full size, fp32, on the devkit's `_ls` collection of the same
#                    frames: 3 steps, then validation (UniScore) on CUDA
#
# Time: the estimates add up to at most 80 % of the deadline (checked before anything runs). A
# stage whose estimate no longer fits before the deadline is recorded as skipped for time and
# never started; a stage runs under its own limit, cut at the deadline; one that fails or times
# out is recorded and the next one runs. After every stage OUT_DIR/gpu_check.json, gpu_check.md
# and gpu_check.log are written anew, so that a call cut short still returns every finished
# stage. The multi-process stages share one launcher, chosen once before the first of them
# (torchrun when the one on PATH can start a process, else dist_launch.sh's own), so that the
# two simulated nodes never probe for it at the same moment.
#
# The synthetic frames are made on the CPU while the GPU runs the tests (one generator per data
# set, single-threaded, about a second a full-size frame); a stage that trains on a set waits
# for it within its own time limit.
#
# The fp16 runs start their loss scale at 2^9 = 512 (fp16.initial_scale_power), mmdet's usual
# static fp16 scale: from DeepSpeed's 2^16 a fresh detector's gradients overflow, and with a
# hysteresis of 2 and a window of 1000 a short run can skip every step. The summary shows the
# steps taken and skipped, the scale, and per run the memory: the allocator's allocated and
# reserved peaks (train_ds's JSON log) and nvidia-smi's used memory, sampled every 250 ms
# during the stage (peak and sample count), each beside the original project's figure of the
# same kind.
#
# Without a usable GPU (CUDA_VISIBLE_DEVICES=-1, or no nvidia-smi) the same script is a
# rehearsal: every stage runs for real at 1/8 image size on the CPU (12 train and 2 val frames;
# one train frame for the V100 recipe and each TopoNet and LaneSegNet run, whose front-view crop
# is scaled
# with the images), except those that need a GPU (cuda_tests run but skip, nccl is skipped),
# the memory cap logged as not applicable, with ten times the limits and no overall deadline
# (GPU_CHECK_DEADLINE_S sets one, in seconds, to rehearse the stages skipped for time).
# The rehearsal puts the python's own bin/ (PyTorch 2.11's torchrun) on PATH, as on the GPU
# machine, so that the chosen launcher is torchrun there too.
#
# Writes OUT_DIR/gpu_check.json and gpu_check.md (scripts/gpu_check_summary.py) and
# gpu_check.log (every stage's output). The CUDA tests read the golden fixtures' inputs from
# OLV2_FIXTURES, by default ../shared/fixtures beside the checkout where it exists, else the
# copy in gpu_bundle/. PYTHON names the python that has PyTorch (default: python3 if it
# imports torch, else the project's .venv).
#
#   scripts/gpu_check.sh [OUT_DIR]    OUT_DIR: default $OUT if set, else gpu_check_out/
#
# Exit status 0 when every stage passed (or was skipped for want of a GPU in a rehearsal), 1 when
# one did not, 2 without gpu_bundle/ or with a plan over its time, 3 when the environment stage
# stopped the check.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bundle=$root/gpu_bundle
python=${PYTHON:-}
if [ -z "$python" ]; then
  python=python3
  if ! python3 -c 'import torch' 2>/dev/null && [ -x "$root/.venv/bin/python" ]; then
    python=$root/.venv/bin/python
  fi
fi
# What travels is the archive; unpacked afresh, the check builds from exactly what travelled.
# Python unpacks it: the GPU machine may have no xz.
if [ -f "$root/gpu_bundle.tar.xz" ]; then
  echo "gpu_check: unpacking gpu_bundle.tar.xz"
  rm -rf "$bundle"
  "$python" -c 'import sys, tarfile
options = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
tarfile.open(sys.argv[1]).extractall(sys.argv[2], **options)' "$root/gpu_bundle.tar.xz" "$root"
fi
if [ ! -d "$bundle/lib/cmake" ]; then
  echo "gpu_check: $bundle not found; make it with scripts/prepare_gpu_bundle.sh on a Debian 12 machine and copy it (or gpu_bundle.tar.xz) with the checkout" >&2
  exit 2
fi
out_dir=${1:-${OUT:-gpu_check_out}}
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
build=$root/build-gpu
work=$build/gpu_check
rm -rf "$work"
mkdir -p "$work/logs" "$work/runs"
stages=$work/stages.tsv
: >"$stages"
jobs=$(nproc)
started=0  # $SECONDS counts from the script's start, the unpacking included
export TORCH_CUDA_ARCH_LIST=9.0
if [ -z "${OLV2_FIXTURES:-}" ] && [ ! -d "$root/../shared/fixtures" ]; then
  export OLV2_FIXTURES=$bundle/fixtures
fi

readonly deadline_s=475
if [[ ${CUDA_VISIBLE_DEVICES-unset} == -* ]] || ! nvidia-smi -L >/dev/null 2>&1; then
  mode=rehearsal
  no_gpu="no GPU (rehearsal on the CPU)"
  deadline=$((started + ${GPU_CHECK_DEADLINE_S:-86400}))
  slow=10  # stage limits are GPU-machine seconds; the CPU rehearsal gets ten times as long
  image_scale=0.125 train_frames=12 val_frames=2 large_train_frames=1 toponet_train_frames=1
  lanesegnet_train_frames=1
  # TopoNet's front-view crop, rows 356 to 1906 of a 2048-row image, at 1/8
  toponet_crop=(data.train.pipeline.3.crop_h=[44,238] data.val.pipeline.1.crop_h=[44,238])
  # The same crop in the Map Element Bucket's pipelines, which have no photometric distortion.
  bucket_crop=(data.train.pipeline.2.crop_h=[44,238] data.val.pipeline.1.crop_h=[44,238])
  # PyTorch 2.11's torchrun, as python3's bin/ holds it on the GPU machine.
  python_bin=$(dirname "$(command -v "$python")")
  export PATH=$python_bin:$PATH
else
  mode=gpu
  no_gpu=""
  deadline=$((started + deadline_s))
  slow=1
  image_scale=1 train_frames=24 val_frames=4 large_train_frames=24 toponet_train_frames=8
  lanesegnet_train_frames=4
  toponet_crop=()
  bucket_crop=()
fi
echo "$mode" >"$work/mode"
echo "gpu_check: $mode on $jobs cores; logs in $work/logs"

# The stages in order of value, each with its estimate and its limit on the GPU machine
# (seconds). docs/development.md shows where each estimate comes from.
plan=(
  "environment 10 60" "configure 20 90" "build 95 300" "isolation 3 20" "version 1 15"
  "cuda_tests 40 100" "nccl 12 40" "test_ds 15 45" "gloo_two_ranks 15 45" "bench_tflops 8 30"
  "baseline_fp16 30 80" "baseline_large_v100 35 90" "toponet_fp32 30 70"
  "lanesegnet_fp32 25 70" "toponet_fp16_recomputed 15 50" "mapele_bucket_fp32 22 60"
)
declare -A estimate budget
order=()
planned=0
for entry in "${plan[@]}"; do
  read -r name seconds limit <<<"$entry"
  estimate[$name]=$seconds
  budget[$name]=$limit
  order+=("$name")
  planned=$((planned + seconds))
done
if [ $((planned * 100)) -gt $((deadline_s * 80)) ]; then
  echo "gpu_check: the stage estimates add up to $planned s, over 80 % of the $deadline_s s deadline" >&2
  exit 2
fi
echo "gpu_check: $planned s of estimates, $((planned * 100 / deadline_s)) % of the $deadline_s s deadline"

# Rewrites OUT_DIR's three files from what the stages recorded so far.
publish() {
  local name
  for name in launcher "${order[@]}"; do
    if [ -f "$work/logs/$name.log" ]; then
      echo "===== $name"
      cat "$work/logs/$name.log"
    fi
  done >"$out_dir/gpu_check.log.partial"
  mv "$out_dir/gpu_check.log.partial" "$out_dir/gpu_check.log"
  timeout 60 "$python" scripts/gpu_check_summary.py --work "$work" --out "$out_dir" ||
    echo "gpu_check: the summary failed; $out_dir/gpu_check.log has every stage's output" >&2
}

record() {  # NAME OUTCOME STATUS SECONDS LIMIT NOTE
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${estimate[$1]}" "$5" "$6" >>"$stages"
  publish
}

skip() {  # NAME REASON [OUTCOME]
  record "$1" "${3:-skipped}" "" 0 "" "$2"
  echo "gpu_check: $1 ${3:-skipped}: $2"
}

# Samples nvidia-smi's used memory every 250 ms into FILE until killed.
sample_gpu_memory() {
  exec nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 250 >"$1" 2>/dev/null
}

# fits NAME: true when NAME's estimate fits in the time left; else records NAME as skipped for
# time.
fits() {
  local left=$((deadline - SECONDS))
  if [ "$left" -lt $((estimate[$1] * slow)) ]; then
    skip "$1" "its estimate of $((estimate[$1] * slow)) s does not fit in the $left s left" \
      skipped_for_time
    return 1
  fi
}

# stage NAME COMMAND...: runs COMMAND under the stage's time limit, logs to logs/NAME.log,
# samples the GPU's memory meanwhile, and records the outcome in stages.tsv. A stage whose
# estimate does not fit before the deadline is not started.
stage() {
  local name=$1
  shift
  fits "$name" || return 0
  local limit=$((budget[$name] * slow)) left=$((deadline - SECONDS)) begin=$SECONDS status sampler=""
  [ "$left" -lt "$limit" ] && limit=$left
  echo "gpu_check: $name (estimate ${estimate[$name]} s, at most $limit s): $*"
  if [ "$mode" = gpu ]; then
    sample_gpu_memory "$work/logs/$name.smi" &
    sampler=$!
  fi
  set +e
  timeout --kill-after=15 "$limit" "$@" >"$work/logs/$name.log" 2>&1
  status=$?
  set -e
  [ -n "$sampler" ] && { kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true; }
  local outcome=ok note=""
  if [ $status -eq 124 ] || [ $status -eq 137 ]; then
    outcome=timeout note="stopped after $limit s"
  elif [ $status -ne 0 ]; then
    outcome=failed
    note=$(grep -v '^\s*$' "$work/logs/$name.log" | tail -1 | cut -c1-300 | tr '\t' ' ')
  fi
  record "$name" "$outcome" "$status" "$((SECONDS - begin))" "$limit" "$note"
  echo "gpu_check: $name $outcome in $((SECONDS - begin)) s (total $((SECONDS - started)) s)"
  [ "$outcome" = ok ] || tail -20 "$work/logs/$name.log" | sed 's/^/    /'
}

# needs NAME FILE...: records NAME as skipped unless it fits in the time left and every FILE
# exists.
needs() {
  local name=$1 file
  shift
  fits "$name" || return 1
  for file in "$@"; do
    if [ ! -e "$file" ]; then
      skip "$name" "${file#"$root"/} is missing"
      return 1
    fi
  done
}

# --- environment, configure, build -----------------------------------------------------------
links=$build/cuda-links
environment_options=()
[ "$mode" = gpu ] && environment_options=(--require-cuda)
stage environment "$python" scripts/gpu_check_environment.py --json "$work/environment.json" \
  --links-dir "$links" "${environment_options[@]}"
if [ "$(cut -f2,3 "$stages" | tail -1)" = $'failed\t3' ]; then
  grep '^gpu_check: stopping' "$work/logs/environment.log" >&2 || true
  for name in "${order[@]:1}"; do skip "$name" "the environment stage stopped the check"; done
  exit 3
fi

# The configure (scripts/configure_gpu_build.sh) starts from no cache and puts PyTorch's own
# LibTorch first, then the bundle.
torch_dir=$("$python" -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null || true)
if [ -n "$torch_dir" ]; then
  stage configure bash scripts/configure_gpu_build.sh "$build" "$python" "$links"
else
  rm -f "$build/build.ninja"
  record configure failed 1 0 "" "$python cannot import torch"
  echo "gpu_check: configure failed: $python cannot import torch"
fi
# Only what a stage runs; ninja's -k 0 builds every target it can when one fails.
targets=(train_ds test_ds make_synthetic_data bench_tflops cuda_tests)
if needs build "$build/build.ninja"; then
  stage build cmake --build "$build" -j"$jobs" --target "${targets[@]}" -- -k 0
fi

bin=$build/bin
if needs isolation "$build/build.ninja" "$bin/train_ds"; then
  programs=()
  for program in "$bin/train_ds" "$bin/test_ds" "$build/tests/cuda_tests"; do
    [ -x "$program" ] && programs+=("$program")
  done
  stage isolation bash scripts/check_build_isolation.sh "$build" "$torch_dir" "${programs[@]}"
fi
needs version "$bin/train_ds" && stage version "$bin/train_ds" --version

# --- the data, made on the CPU while the GPU runs the tests ----------------------------------
# On the GPU the V100 recipe trains on the frames `baseline` does; in the rehearsal, where a step
# of it takes most of a minute, on one of its own, as TopoNet does there. On the GPU TopoNet
# trains on 8 full-size frames of its own. `small` is the demo's data for the rank and test_ds
# runs.
data=$work/data
large_data=$data
[ "$large_train_frames" = "$train_frames" ] || large_data=$work/data_large
toponet_data=$large_data
[ "$toponet_train_frames" = "$large_train_frames" ] || toponet_data=$work/data_toponet
small=$work/data_small
lanesegnet_data=$work/data_lanesegnet  # v2.x lane-segment frames
# generate DIR TRAIN VAL SCALE [FLAG...]: makes DIR in the background (the flags go to
# make_synthetic_data); DIR.status holds its exit status.
generate() {
  [ -e "$1.started" ] && return 0
  : >"$1.started"
  (
    trap 'kill "$generator" 2>/dev/null' TERM
    status=0
    "$bin/make_synthetic_data" --out-dir "$1" --frames "$(($2 + $3))" --val-frames "$3" \
      --image-scale "$4" "${@:5}" >"$1.log" 2>&1 &
    generator=$!
    wait "$generator" || status=$?
    echo "$status" >"$1.status"
  ) &
}
if [ -x "$bin/make_synthetic_data" ]; then
  generate "$small" 8 2 0.125
  generate "$data" "$train_frames" "$val_frames" "$image_scale"
  generate "$large_data" "$large_train_frames" 1 "$image_scale"
  generate "$toponet_data" "$toponet_train_frames" 1 "$image_scale"
  generate "$lanesegnet_data" "$lanesegnet_train_frames" 1 "$image_scale" --format lane-segment
fi
# with_data DIR COMMAND...: waits for DIR's generator, then runs COMMAND; a generator that
# failed fails the stage with its log. data_stage NAME DIR COMMAND...: the stage NAME running
# COMMAND on DIR, the wait included in its time.
with_data() {
  local dir=$1
  shift
  while [ ! -f "$dir.status" ]; do sleep 0.5; done
  if [ "$(cat "$dir.status")" != 0 ]; then
    cat "$dir.log"
    echo "gpu_check: make_synthetic_data failed for ${dir##*/} (status $(cat "$dir.status"))"
    return 1
  fi
  "$@"
}
export -f with_data
data_stage() {
  stage "$1" bash -c 'with_data "$@"' _ "${@:2}"
}

# --- tests -----------------------------------------------------------------------------------
if needs cuda_tests "$build/tests/cuda_tests"; then
  # Verbose: each test prints its worst differences, and a GoogleTest case that skips passes in
  # CTest's count; the summary lists them from the output. Without a GPU they skip, naming why.
  require_cuda=1
  [ "$mode" = rehearsal ] && require_cuda=0
  stage cuda_tests env OLV2_REQUIRE_CUDA=$require_cuda ctest --test-dir "$build" -L cuda \
    --no-tests=error --output-on-failure -V
fi

# --- ranks and test_ds -----------------------------------------------------------------------
# One launcher for every multi-process stage, chosen here once: torchrun when the one on PATH
# starts a process, else dist_launch.sh's own. dist_launch.sh takes it from DIST_LAUNCHER and
# probes nothing.
choose_launcher() {
  local port
  port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  if command -v torchrun >/dev/null 2>&1 &&
    timeout 60 torchrun --nproc_per_node 1 --master_addr 127.0.0.1 --master_port "$port" \
      --monitor_interval 0.1 --no_python true >&2
  then
    echo torchrun
  else
    echo self
  fi
}
export DIST_LAUNCHER
DIST_LAUNCHER=$(choose_launcher 2>"$work/logs/launcher.log")
echo "$DIST_LAUNCHER" >"$work/launcher"
echo "gpu_check: the rank stages start their ranks with $DIST_LAUNCHER ($(command -v torchrun || echo 'no torchrun on PATH'))" |
  tee -a "$work/logs/launcher.log"

# No pretrained ResNet (torchvision's weights are not on the machine), one epoch, a log record
# per optimizer step.
demo_options=(data_root="$small" meta_root="$small" runner.max_epochs=1 log_config.interval=1
              checkpoint_config.interval=1)
export TRAIN_DS=$bin/train_ds
if ! fits nccl; then
  :
elif [ -n "$no_gpu" ]; then
  skip nccl "$no_gpu: NCCL needs one"
elif needs nccl "$bin/train_ds"; then
  data_stage nccl "$small" bash scripts/dist_train.sh configs/demo.yaml 1 \
    --work-dir "$work/runs/nccl" --no-validate --cfg-options "${demo_options[@]}" \
    dist_params.backend=nccl
fi

# train_then_test WORK_DIR: the demo model one epoch, then test_ds --eval on its checkpoint.
train_then_test() {
  "$TRAIN_DS" configs/demo.yaml --no-validate --work-dir "$1/train" --cfg-options \
    "${@:2}" && "$TEST_DS" configs/demo.yaml "$1/train/epoch_1.pth" --split val --eval \
    --work-dir "$1" --cfg-options "${@:2}"
}
export -f train_then_test
export TEST_DS=$bin/test_ds
if needs test_ds "$bin/train_ds" "$bin/test_ds"; then
  data_stage test_ds "$small" bash -c 'train_then_test "$@"' _ "$work/runs/test_ds" \
    "${demo_options[@]}"
fi

# Two one-process nodes on this host, so that each rank's local rank, and so its device, is 0.
two_nodes() {
  local port
  port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  export MASTER_PORT=$port
  bash scripts/dist_train.sh --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 "$@" \
    >"$work/logs/gloo_two_ranks.node1.log" 2>&1 &
  local other=$! status=0
  bash scripts/dist_train.sh --nnodes 2 --node-rank 0 --master-addr 127.0.0.1 "$@" || status=$?
  wait "$other" || status=$((status == 0 ? $? : status))
  echo "===== node 1"
  cat "$work/logs/gloo_two_ranks.node1.log"
  return $status
}
export -f two_nodes
export python work
if needs gloo_two_ranks "$bin/train_ds"; then
  data_stage gloo_two_ranks "$small" bash -c 'two_nodes "$@"' _ configs/demo.yaml 1 \
    --work-dir "$work/runs/gloo_two_ranks" --no-validate --cfg-options "${demo_options[@]}" \
    dist_params.backend=gloo
fi

# --- the device's rates and the long recipes -------------------------------------------------
if needs bench_tflops "$bin/bench_tflops"; then
  if [ "$mode" = gpu ]; then
    stage bench_tflops "$bin/bench_tflops" --device cuda
  else
    stage bench_tflops "$bin/bench_tflops" --device cpu --n 256 --runs 3 --dtypes fp32
  fi
fi

data_options=(data.train.collection=data_dict_synthetic_train
              data.val.collection=data_dict_synthetic_val
              data.test.collection=data_dict_synthetic_val model.img_backbone.init_cfg=null)
run_options=(runner.max_epochs=1 log_config.interval=1 fp16.initial_scale_power=9)
# A 16 GB card holds 16,384 MiB, of which the CUDA context takes about half a GiB outside the
# allocator.
readonly card_16gb_cap_gib=15.5
if needs baseline_fp16 "$bin/train_ds"; then
  data_stage baseline_fp16 "$data" "$bin/train_ds" configs/baseline.yaml --use-fp16 \
    --cuda-memory-cap "$card_16gb_cap_gib" --work-dir "$work/runs/baseline_fp16" \
    --cfg-options data_root="$data" meta_root="$data" "${data_options[@]}" "${run_options[@]}" \
    data.samples_per_gpu=2 data.gradient_accumulation_steps=2
fi
if needs baseline_large_v100 "$bin/train_ds"; then
  data_stage baseline_large_v100 "$large_data" "$bin/train_ds" \
    configs/baseline_large_v100.yaml --no-validate --work-dir "$work/runs/baseline_large_v100" \
    --cfg-options data_root="$large_data" meta_root="$large_data" "${data_options[@]}" \
    "${run_options[@]}"
fi
# TopoNet names its collections by the devkit's pickles (the JSON beside each is read); the full
# subset-A model as its authors train it, 8 GPUs x 1 frame.
toponet_options=(data.train.data_root="$toponet_data"
                 data.train.ann_file="$toponet_data/data_dict_synthetic_train.pkl"
                 data.val.data_root="$toponet_data"
                 data.val.ann_file="$toponet_data/data_dict_synthetic_val.pkl"
                 model.img_backbone.init_cfg=null runner.max_epochs=1 log_config.interval=1
                 "${toponet_crop[@]}")
toponet_config=configs/toponet_r50_8x1_24e_olv2_subset_A.yaml
if needs toponet_fp32 "$bin/train_ds"; then
  data_stage toponet_fp32 "$toponet_data" "$bin/train_ds" "$toponet_config" \
    --work-dir "$work/runs/toponet_fp32" --cfg-options "${toponet_options[@]}" \
    evaluation.interval=1
fi
# LaneSegNet names its collections by its own pickles (the JSON beside each is read); the full
# subset-A model as its authors train it, 8 GPUs x 1 frame, with TopoNet's front-view crop.
# TopoNet's fp16 run follows, on 4 of its frames.
lanesegnet_options=(data.train.data_root="$lanesegnet_data"
                    data.train.ann_file="$lanesegnet_data/data_dict_synthetic_train_lanesegnet.pkl"
                    data.val.data_root="$lanesegnet_data"
                    data.val.ann_file="$lanesegnet_data/data_dict_synthetic_val_lanesegnet.pkl"
                    model.img_backbone.init_cfg=null runner.max_epochs=1 log_config.interval=1
                    "${toponet_crop[@]}")
if needs lanesegnet_fp32 "$bin/train_ds"; then
  data_stage lanesegnet_fp32 "$lanesegnet_data" "$bin/train_ds" \
    configs/lanesegnet_r50_8x1_24e_olv2_subset_A.yaml --work-dir "$work/runs/lanesegnet_fp32" \
    --cfg-options "${lanesegnet_options[@]}" evaluation.interval=1
fi

if needs toponet_fp16_recomputed "$bin/train_ds"; then
  data_stage toponet_fp16_recomputed "$toponet_data" "$bin/train_ds" "$toponet_config" \
    --use-fp16 --no-validate --work-dir "$work/runs/toponet_fp16_recomputed" \
    --cfg-options "${toponet_options[@]}" fp16.initial_scale_power=9 data.max_frames=4 \
    "model.checkpoint=[extract_feat,bev_constructor]"
fi

# The Map Element Bucket reads the devkit's collection of LaneSegNet's frames (`_ls`: areas at 20
# points), three of them.
if needs mapele_bucket_fp32 "$bin/train_ds"; then
  data_stage mapele_bucket_fp32 "$lanesegnet_data" "$bin/train_ds" \
    configs/lanesegnet_r50_8x1_24e_olv2_subset_A_mapele_bucket.yaml \
    --work-dir "$work/runs/mapele_bucket_fp32" --cfg-options \
    data.train.data_root="$lanesegnet_data" \
    data.train.ann_file="$lanesegnet_data/data_dict_synthetic_train_ls.pkl" \
    data.val.data_root="$lanesegnet_data" \
    data.val.ann_file="$lanesegnet_data/data_dict_synthetic_val_ls.pkl" \
    model.img_backbone.init_cfg=null runner.max_epochs=1 log_config.interval=1 \
    data.max_frames=3 evaluation.interval=1 "${bucket_crop[@]}"
fi

# --- summary ---------------------------------------------------------------------------------
# The generators are done by now, unless every stage that needed one was skipped.
jobs -p | xargs -r kill 2>/dev/null || true
cat "$out_dir/gpu_check.md"
echo "gpu_check: $((SECONDS - started)) s in all; $out_dir/gpu_check.json, gpu_check.md, gpu_check.log"
if cut -f2 "$stages" | grep -qvxE 'ok|skipped'; then exit 1; fi
if [ "$mode" = gpu ] && cut -f2 "$stages" | grep -qx skipped; then exit 1; fi
