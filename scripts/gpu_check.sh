#!/usr/bin/env bash
# The GPU check: on a machine with an NVIDIA GPU, PyTorch 2.11 (python3), CMake, ninja, nvcc and
# a C++ compiler but no network and none of our Debian packages, builds the project against
# that PyTorch and gpu_bundle/ (made beforehand by scripts/prepare_gpu_bundle.sh) and measures
# what GPU users compare. One call on a 16-core machine takes at most 7.5 minutes:
#
#   environment      nvidia-smi, compiler, CMake, nvcc, ninja, glibc, PyTorch (stops unless 2.11.x)
#   configure        CMake against PyTorch's LibTorch and the bundle
#   build            every target a later stage runs, in one call that keeps going past a
#                    failed target
#   isolation        no header or library of the build came from a system copy of a
#                    dependency (scripts/check_build_isolation.sh)
#   version          train_ds --version
#   cuda_tests       ctest -L cuda with OLV2_REQUIRE_CUDA=1 (GPU against CPU, fp16, NCCL-free)
#   bench_tflops     the GPU's matrix-product rates
#   synthetic_data   full-size frames (24 train, 4 val) and 1/8-size ones for the rank runs
#   baseline_fp16    `baseline`, --use-fp16, 2 frames x 2 accumulated = 6 optimizer steps,
#                    then validation on CUDA
#   baseline_large_v100  the V100 recipe (fp16, batch 1, recomputed stages): 24 steps
#   toponet_fp32     TopoNet on subset A at full size, the original's recipe (batch 1, fp32):
#                    8 steps, then validation on CUDA
#   toponet_fp16_recomputed  the same with --use-fp16 and the backbone and BEV stages
#                    recomputed: 8 steps
#   test_ds          test_ds --eval on baseline_fp16's checkpoint
#   nccl             one rank through the pytorch launcher on NCCL: store, process group,
#                    overlapped bucket all-reduce, stop-flag all-reduce, shutdown
#   gloo_two_ranks   two Gloo ranks on the one GPU (two one-process nodes: each rank's local
#                    rank is 0), CUDA tensors through the bucket sync
#
# The fp16 runs start their loss scale at 2^9 = 512 (fp16.initial_scale_power), mmdet's usual
# static fp16 scale: from DeepSpeed's 2^16 a fresh detector's gradients overflow, and with a
# hysteresis of 2 and a window of 1000 a short run can skip every step. The summary shows
# the steps taken and skipped, the scale, and per stage the memory: the allocator's allocated
# and reserved peaks (train_ds's JSON log) and nvidia-smi's used memory, sampled every 250 ms
# during the stage (peak), beside the original project's figures.
#
# Each stage has a time limit: its own budget, cut so that the stages after it keep half their
# estimates within the 7.5 minutes; a stage that fails or times out is recorded and the next one
# runs. Without a usable GPU (CUDA_VISIBLE_DEVICES=-1, or no nvidia-smi) the same script is a
# rehearsal: every stage runs for real at 1/8 image size on the CPU (12 train and 2 val frames;
# one train frame for the V100 recipe and each TopoNet run, whose front-view crop is scaled
# with the images), except those that need a GPU (cuda_tests run but skip, nccl is skipped),
# with no overall deadline.
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
# one did not, 2 without gpu_bundle/, 3 when the environment stage stopped the check.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bundle=$root/gpu_bundle
if [ ! -d "$bundle/lib/cmake" ]; then
  echo "gpu_check: $bundle not found; make it with scripts/prepare_gpu_bundle.sh on a Debian 12 machine and copy it with the checkout" >&2
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
started=$SECONDS
export TORCH_CUDA_ARCH_LIST=9.0
if [ -z "${OLV2_FIXTURES:-}" ] && [ ! -d "$root/../shared/fixtures" ]; then
  export OLV2_FIXTURES=$bundle/fixtures
fi
python=${PYTHON:-}
if [ -z "$python" ]; then
  python=python3
  if ! python3 -c 'import torch' 2>/dev/null && [ -x "$root/.venv/bin/python" ]; then
    python=$root/.venv/bin/python
  fi
fi

if [[ ${CUDA_VISIBLE_DEVICES-unset} == -* ]] || ! nvidia-smi -L >/dev/null 2>&1; then
  mode=rehearsal
  no_gpu="no GPU (rehearsal on the CPU)"
  deadline=$((started + 24 * 3600))
  slow=10  # stage budgets are GPU-machine seconds; the CPU rehearsal gets ten times as long
  image_scale=0.125 train_frames=12 val_frames=2 large_train_frames=1 toponet_train_frames=1
  # TopoNet's front-view crop, rows 356 to 1906 of a 2048-row image, at 1/8
  toponet_crop=(data.train.pipeline.3.crop_h=[44,238] data.val.pipeline.1.crop_h=[44,238])
else
  mode=gpu
  no_gpu=""
  deadline=$((started + 435))  # 7.5 minutes, less the summary's few seconds
  slow=1
  image_scale=1 train_frames=24 val_frames=4 large_train_frames=24 toponet_train_frames=8
  toponet_crop=()
fi
echo "$mode" >"$work/mode"
echo "gpu_check: $mode on $jobs cores; logs in $work/logs"

# The stages in order, each with its estimate and its budget on the GPU machine (seconds).
plan=(
  "environment 10 30" "configure 25 90" "build 150 300" "isolation 3 20" "version 2 15"
  "cuda_tests 45 100" "bench_tflops 10 30" "synthetic_data 5 60" "baseline_fp16 40 80"
  "baseline_large_v100 45 90" "toponet_fp32 30 70" "toponet_fp16_recomputed 30 70"
  "test_ds 15 45" "nccl 12 40" "gloo_two_ranks 15 45"
)
declare -A estimate budget
order=()
for entry in "${plan[@]}"; do
  read -r name seconds limit <<<"$entry"
  estimate[$name]=$seconds
  budget[$name]=$limit
  order+=("$name")
done

# Seconds the stages after NAME keep in reserve: half their estimates.
reserve_after() {
  local name=$1 seen=0 reserve=0 other
  for other in "${order[@]}"; do
    [ $seen = 1 ] && reserve=$((reserve + (estimate[$other] + 1) / 2))
    [ "$other" = "$name" ] && seen=1
  done
  echo $((reserve * slow))
}

record() {  # NAME OUTCOME STATUS SECONDS LIMIT NOTE
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${estimate[$1]}" "$5" "$6" >>"$stages"
}

skip() {  # NAME REASON
  record "$1" skipped "" 0 "" "$2"
  echo "gpu_check: $1 skipped: $2"
}

# Samples nvidia-smi's used memory every 250 ms into FILE until killed.
sample_gpu_memory() {
  exec nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 250 >"$1" 2>/dev/null
}

# stage NAME COMMAND...: runs COMMAND under the stage's time limit, logs to logs/NAME.log,
# samples the GPU's memory meanwhile, and records the outcome in stages.tsv.
stage() {
  local name=$1
  shift
  local limit=$((budget[$name] * slow)) left begin=$SECONDS status sampler=""
  left=$((deadline - SECONDS - $(reserve_after "$name")))
  [ "$left" -lt "$limit" ] && limit=$left
  if [ "$limit" -lt 5 ]; then
    skip "$name" "no time left"
    return 0
  fi
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

# needs NAME FILE...: records NAME as skipped unless every FILE exists.
needs() {
  local name=$1 file
  shift
  for file in "$@"; do
    if [ ! -e "$file" ]; then
      skip "$name" "${file#"$root"/} is missing"
      return 1
    fi
  done
}

# --- environment, configure, build -----------------------------------------------------------
links=$build/cuda-links
stage environment "$python" scripts/gpu_check_environment.py --json "$work/environment.json" \
  --links-dir "$links"
if [ "$(cut -f2,3 "$stages" | tail -1)" = $'failed\t3' ]; then
  grep '^gpu_check: stopping' "$work/logs/environment.log" >&2 || true
  for name in "${order[@]:1}"; do skip "$name" "the environment stage stopped the check"; done
  cp "$work/logs/environment.log" "$out_dir/gpu_check.log"
  "$python" scripts/gpu_check_summary.py --work "$work" --out "$out_dir" || true
  exit 3
fi

# A configure that fails leaves no build.ninja behind, not an earlier run's; and every configure
# starts from no cache, so that nothing an earlier one found (another LibTorch) sticks.
rm -f "$build/build.ninja" "$build/CMakeCache.txt"
# PyTorch's package directory (its lib/ holds libtorch.so) goes on the prefix path beside its
# CMake packages, before the system's: a LibTorch installed there is never picked up instead.
# Caffe2's config enables CMake's CUDA language, whose identification compiles with the host
# compiler: nvcc must not refuse a compiler newer than it knows (nothing here compiles CUDA).
torch_dir=$("$python" -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null || true)
if [ -n "$torch_dir" ]; then
  stage configure cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DOLV2_LIBTORCH=prefix -DOLV2_SOURCE_REGEX= \
    -DCMAKE_PREFIX_PATH="$torch_dir/share/cmake;$torch_dir;$bundle" \
    -DCMAKE_LIBRARY_PATH="$links" -DCMAKE_CUDA_FLAGS=-allow-unsupported-compiler \
    -DProtobuf_INCLUDE_DIR="$bundle/include" -DProtobuf_LIBRARY="$bundle/lib/libprotobuf.so.32" \
    -DProtobuf_PROTOC_EXECUTABLE="$bundle/bin/protoc"
else
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

# --- tests and the device's rates ------------------------------------------------------------
# The frames are made on the CPU while the GPU runs the tests (single-threaded, about a second
# a full-size frame); the synthetic_data stage below waits for them.
# On the GPU the V100 recipe trains on the frames `baseline` does; in the rehearsal, where a step
# of it takes most of a minute, on one of its own, as TopoNet does there. On the GPU TopoNet
# trains on 8 full-size frames of its own.
data=$work/data
large_data=$data
[ "$large_train_frames" = "$train_frames" ] || large_data=$work/data_large
toponet_data=$large_data
[ "$toponet_train_frames" = "$large_train_frames" ] || toponet_data=$work/data_toponet
small=$work/data_small
generated=$work/synthetic_data.status
if [ -x "$bin/make_synthetic_data" ]; then
  (
    make() { "$bin/make_synthetic_data" --out-dir "$1" --frames "$(($2 + $3))" --val-frames "$3" --image-scale "$4"; }
    status=0
    { make "$data" "$train_frames" "$val_frames" "$image_scale" && make "$small" 8 0 0.125 &&
      { [ "$large_data" = "$data" ] || make "$large_data" "$large_train_frames" 1 "$image_scale"; } &&
      { [ "$toponet_data" = "$large_data" ] ||
        make "$toponet_data" "$toponet_train_frames" 1 "$image_scale"; }; } ||
      status=$?
    echo "$status" >"$generated"
  ) >"$work/logs/synthetic_data.generator.log" 2>&1 &
fi
if needs cuda_tests "$build/tests/cuda_tests"; then
  # Verbose: each test prints its worst differences, and a GoogleTest case that skips passes in
  # CTest's count; the summary lists them from the output. Without a GPU they skip, naming why.
  require_cuda=1
  [ "$mode" = rehearsal ] && require_cuda=0
  stage cuda_tests env OLV2_REQUIRE_CUDA=$require_cuda ctest --test-dir "$build" -L cuda \
    --no-tests=error --output-on-failure -V
fi
if needs bench_tflops "$bin/bench_tflops"; then
  if [ "$mode" = gpu ]; then
    stage bench_tflops "$bin/bench_tflops" --device cuda
  else
    stage bench_tflops "$bin/bench_tflops" --device cpu --n 256 --runs 3 --dtypes fp32
  fi
fi

# --- training, validation, test_ds -----------------------------------------------------------
if needs synthetic_data "$bin/make_synthetic_data"; then
  # The stage waits for what the generator, started before the tests, wrote meanwhile.
  # shellcheck disable=SC2016  # expanded by the inner shell
  stage synthetic_data bash -c 'while [ ! -f "$1" ]; do sleep 0.5; done; cat "$2"; exit "$(cat "$1")"' \
    _ "$generated" "$work/logs/synthetic_data.generator.log"
fi
# No pretrained ResNet (torchvision's weights are not on the machine), one epoch, a log record
# per optimizer step.
data_options=(data.train.collection=data_dict_synthetic_train
              data.val.collection=data_dict_synthetic_val
              data.test.collection=data_dict_synthetic_val model.img_backbone.init_cfg=null)
run_options=(runner.max_epochs=1 log_config.interval=1 fp16.initial_scale_power=9)
if needs baseline_fp16 "$bin/train_ds" "$data/data_dict_synthetic.json"; then
  stage baseline_fp16 "$bin/train_ds" configs/baseline.yaml --use-fp16 \
    --work-dir "$work/runs/baseline_fp16" --cfg-options data_root="$data" meta_root="$data" \
    "${data_options[@]}" "${run_options[@]}" \
    data.samples_per_gpu=2 data.gradient_accumulation_steps=2
fi
if needs baseline_large_v100 "$bin/train_ds" "$large_data/data_dict_synthetic.json"; then
  stage baseline_large_v100 "$bin/train_ds" configs/baseline_large_v100.yaml --no-validate \
    --work-dir "$work/runs/baseline_large_v100" --cfg-options data_root="$large_data" \
    meta_root="$large_data" "${data_options[@]}" "${run_options[@]}"
fi
# TopoNet names its collections by the devkit's pickles (the JSON beside each is read); the full
# subset-A model as its authors train it, 8 GPUs x 1 frame: 12.3 GB each, as published.
toponet_options=(data.train.data_root="$toponet_data"
                 data.train.ann_file="$toponet_data/data_dict_synthetic_train.pkl"
                 data.val.data_root="$toponet_data"
                 data.val.ann_file="$toponet_data/data_dict_synthetic_val.pkl"
                 model.img_backbone.init_cfg=null runner.max_epochs=1 log_config.interval=1
                 "${toponet_crop[@]}")
toponet_config=configs/toponet_r50_8x1_24e_olv2_subset_A.yaml
if needs toponet_fp32 "$bin/train_ds" "$toponet_data/data_dict_synthetic.json"; then
  stage toponet_fp32 "$bin/train_ds" "$toponet_config" --work-dir "$work/runs/toponet_fp32" \
    --cfg-options "${toponet_options[@]}" evaluation.interval=1
fi
if needs toponet_fp16_recomputed "$bin/train_ds" "$toponet_data/data_dict_synthetic.json"; then
  stage toponet_fp16_recomputed "$bin/train_ds" "$toponet_config" --use-fp16 --no-validate \
    --work-dir "$work/runs/toponet_fp16_recomputed" --cfg-options "${toponet_options[@]}" \
    fp16.initial_scale_power=9 "model.checkpoint=[extract_feat,bev_constructor]"
fi
checkpoint=$work/runs/baseline_fp16/epoch_1.pth
if needs test_ds "$bin/test_ds" "$checkpoint"; then
  stage test_ds "$bin/test_ds" configs/baseline.yaml "$checkpoint" --split val --eval \
    --work-dir "$work/runs/test_ds" --cfg-options data_root="$data" meta_root="$data" \
    "${data_options[@]}"
fi

# --- ranks -----------------------------------------------------------------------------------
rank_options=(--no-validate --cfg-options data_root="$small" meta_root="$small"
              runner.max_epochs=1 log_config.interval=1)
export TRAIN_DS=$bin/train_ds
if [ -n "$no_gpu" ]; then
  skip nccl "$no_gpu: NCCL needs one"
elif needs nccl "$bin/train_ds" "$small/data_dict_synthetic.json"; then
  stage nccl bash scripts/dist_train.sh configs/demo.yaml 1 --work-dir "$work/runs/nccl" \
    "${rank_options[@]}" dist_params.backend=nccl
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
if needs gloo_two_ranks "$bin/train_ds" "$small/data_dict_synthetic.json"; then
  stage gloo_two_ranks bash -c 'two_nodes "$@"' _ configs/demo.yaml 1 \
    --work-dir "$work/runs/gloo_two_ranks" "${rank_options[@]}" dist_params.backend=gloo
fi

# --- summary ---------------------------------------------------------------------------------
for name in "${order[@]}"; do
  if [ -f "$work/logs/$name.log" ]; then
    echo "===== $name"
    cat "$work/logs/$name.log"
  fi
done >"$out_dir/gpu_check.log"
timeout 60 "$python" scripts/gpu_check_summary.py --work "$work" --out "$out_dir"
cat "$out_dir/gpu_check.md"
echo "gpu_check: $((SECONDS - started)) s in all; $out_dir/gpu_check.json, gpu_check.md, gpu_check.log"
if cut -f2 "$stages" | grep -qvxE 'ok|skipped'; then exit 1; fi
if [ "$mode" = gpu ] && cut -f2 "$stages" | grep -qx skipped; then exit 1; fi
