#!/usr/bin/env bash
# The CUDA check, on a GPU machine with PyTorch 2.x (python3), CMake, ninja and nvcc but no
# network and none of our Debian packages: builds against that PyTorch and gpu_bundle/ (made
# beforehand by scripts/prepare_gpu_bundle.sh on Debian) into build-gpu/, runs the `cuda` tests
# and bench_tflops, and trains `baseline` (fp16, batch 2 x accumulation 2) and the
# `baseline_large_v100` recipe (fp16, batch 1, recomputed stages) for a few steps each on
# full-size synthetic frames. Every stage has a time limit (all together under 8 minutes); a
# stage that fails is recorded and the next one runs. Writes OUT_DIR/gpu_check.json and
# gpu_check.md (versions, the matmul rates, the test summary, per run the steps, the median
# seconds per optimizer step after the first and the peak CUDA memory) and gpu_check.log.
# The CUDA tests read the golden fixtures' inputs from OLV2_FIXTURES, by default
# ../shared/fixtures beside the checkout where it exists, else the copy in gpu_bundle/.
#
#   scripts/gpu_check.sh [OUT_DIR]    OUT_DIR: default $OUT if set, else gpu_check_out/
#
# Exit status 0 when every stage passed, 1 when one did not, 2 without gpu_bundle/
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
deadline=$((started + 465))  # 8 minutes, less the summary's few seconds
export TORCH_CUDA_ARCH_LIST=9.0
if [ -z "${OLV2_FIXTURES:-}" ] && [ ! -d "$root/../shared/fixtures" ]; then
  export OLV2_FIXTURES=$bundle/fixtures
fi

# stage NAME SECONDS COMMAND...: runs COMMAND for at most SECONDS (less if the overall deadline
# is nearer), logs to logs/NAME.log and records the outcome in stages.tsv.
stage() {
  local name=$1 budget=$2
  shift 2
  local limit=$((deadline - SECONDS)) begin=$SECONDS status
  [ "$budget" -lt "$limit" ] && limit=$budget
  if [ "$limit" -lt 5 ]; then
    printf '%s\tskipped\t\t0\tno time left\n' "$name" >>"$stages"
    echo "gpu_check: $name skipped: no time left"
    return 0
  fi
  echo "gpu_check: $name (at most $limit s): $*"
  set +e
  timeout --kill-after=15 "$limit" "$@" >"$work/logs/$name.log" 2>&1
  status=$?
  set -e
  local outcome=ok note=""
  if [ $status -eq 124 ] || [ $status -eq 137 ]; then
    outcome=timeout note="stopped after $limit s"
  elif [ $status -ne 0 ]; then
    outcome=failed note=$(grep -v '^\s*$' "$work/logs/$name.log" | tail -1 | cut -c1-300 | tr '\t' ' ')
  fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$outcome" "$status" "$((SECONDS - begin))" "$note" >>"$stages"
  echo "gpu_check: $name $outcome in $((SECONDS - begin)) s (total $((SECONDS - started)) s)"
  [ "$outcome" = ok ] || tail -20 "$work/logs/$name.log" | sed 's/^/    /'
}

# needs NAME FILE...: records NAME as skipped unless every FILE exists.
needs() {
  local name=$1 file
  shift
  for file in "$@"; do
    if [ ! -e "$file" ]; then
      printf '%s\tskipped\t\t0\t%s is missing\n' "$name" "${file#"$root"/}" >>"$stages"
      echo "gpu_check: $name skipped: ${file#"$root"/} is missing"
      return 1
    fi
  done
}

# A configure that fails leaves no build.ninja behind, not an earlier run's.
rm -f "$build/build.ninja"
torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)
if [ -n "$torch_prefix" ]; then
  stage configure 120 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DOLV2_LIBTORCH=prefix -DOLV2_SOURCE_REGEX= -DCMAKE_PREFIX_PATH="$torch_prefix;$bundle" \
    -DProtobuf_INCLUDE_DIR="$bundle/include" -DProtobuf_LIBRARY="$bundle/lib/libprotobuf.so.32" \
    -DProtobuf_PROTOC_EXECUTABLE="$bundle/bin/protoc"
else
  printf 'configure\tfailed\t1\t0\tpython3 cannot import torch\n' >>"$stages"
  echo "gpu_check: configure failed: python3 cannot import torch"
fi
if needs build "$build/build.ninja"; then
  stage build 300 cmake --build "$build" -j"$jobs" --target train_ds make_synthetic_data \
    bench_tflops bench_train_step
fi
# Its own stage: a test that does not compile must not keep the runs below from their binaries.
if needs build_tests "$build/build.ninja"; then
  stage build_tests 120 cmake --build "$build" -j"$jobs" --target cuda_tests
fi

bin=$build/bin
needs version "$bin/train_ds" && stage version 20 "$bin/train_ds" --version
if needs ctest "$build/tests/cuda_tests"; then
  # Verbose: a GoogleTest case that skips (a golden fixture missing) passes in CTest's count;
  # the summary lists them from the output.
  stage ctest 120 env OLV2_REQUIRE_CUDA=1 ctest --test-dir "$build" -L cuda --no-tests=error \
    --output-on-failure -V
fi
needs bench_tflops "$bin/bench_tflops" && stage bench_tflops 45 "$bin/bench_tflops" --device cuda

# 16 full-size frames: 4 optimizer steps of baseline (2 x 2 frames), 16 of the large recipe.
data=$work/data
needs synthetic_data "$bin/make_synthetic_data" &&
  stage synthetic_data 60 "$bin/make_synthetic_data" --out "$data" --frames 16 --val-frames 0 \
    --image-scale 1
# No pretrained ResNet (torchvision's weights are not on the machine), no validation (no val
# frames), one epoch, a log record per optimizer step.
run_options=(--no-validate --cfg-options data_root="$data" meta_root="$data"
             data.train.collection=data_dict_synthetic_train runner.max_epochs=1
             log_config.interval=1 model.img_backbone.init_cfg=null)
if needs baseline "$bin/train_ds" "$data/data_dict_synthetic.json"; then
  stage baseline 90 "$bin/train_ds" configs/baseline.yaml --use-fp16 \
    --work-dir "$work/runs/baseline" "${run_options[@]}" data.samples_per_gpu=2 \
    data.gradient_accumulation_steps=2
fi
if needs baseline_large_v100 "$bin/train_ds" "$data/data_dict_synthetic.json"; then
  stage baseline_large_v100 120 "$bin/train_ds" configs/baseline_large_v100.yaml \
    --work-dir "$work/runs/baseline_large_v100" "${run_options[@]}"
fi

cut -f1 "$stages" | while read -r name; do
  if [ -f "$work/logs/$name.log" ]; then
    echo "===== $name"
    cat "$work/logs/$name.log"
  fi
done >"$out_dir/gpu_check.log"
timeout 60 python3 scripts/gpu_check_summary.py --work "$work" --out "$out_dir"
cat "$out_dir/gpu_check.md"
echo "gpu_check: $((SECONDS - started)) s in all; $out_dir/gpu_check.json, gpu_check.md, gpu_check.log"
if grep -qv $'^[^\t]*\tok\t' "$stages"; then exit 1; fi
