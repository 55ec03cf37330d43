#!/usr/bin/env bash
# The sanitizer and fuzz steps of CI, over what parses untrusted bytes, in one Clang build
# (build-sanitize/, -O1 with line tables, OLV2_SANITIZE and OLV2_FUZZ) of the parsing layers
# only: util/ (the .pth and pickle readers), config/ (the YAML loader and schemas), data/ (frame
# and collection JSON, images), evaluation/ (results files, the devkit's pickles) and the
# assign/ and losses/ layers that evaluation's matching uses (OLV2_SOURCE_REGEX; models/,
# engine/, solver/ and visualization/ are not compiled):
#   1. the unit tests of util/, config/, data/ and evaluation/ under AddressSanitizer (with
#      LeakSanitizer) and UndefinedBehaviorSanitizer, with the suppressions of cmake/sanitizers/;
#   2. every fuzz target of tests/fuzz for OLV2_FUZZ_SECONDS (30) from seed corpora made of the
#      project's own files: configs, .pth test files, a synthetic dataset's frame and collection
#      JSON and JPEGs, results files. A crash, a hang (10 s per input), a leak or an escaping
#      exception other than the project's input errors fails the step; findings are kept in
#      build-sanitize/fuzz-findings/<target>/.
# Usage: scripts/check_sanitizers.sh [--skip-tests] [--skip-fuzz]
set -euo pipefail
cd "$(dirname "$0")/.."

run_tests=1
run_fuzz=1
for argument in "$@"; do
  case "$argument" in
    --skip-tests) run_tests=0 ;;
    --skip-fuzz) run_fuzz=0 ;;
    *) echo "check_sanitizers: unknown argument $argument" >&2; exit 2 ;;
  esac
done
seconds=${OLV2_FUZZ_SECONDS:-30}
build=build-sanitize
suppressions=$PWD/cmake/sanitizers

# Clang with libFuzzer, on top of what the tests need (the unit tests below run the same Python
# oracles as scripts/test.sh, and the build uses Debian's LibTorch).
bash scripts/install_test_deps.sh clang-14 libfuzzer-14-dev
compiler=$(command -v clang++ || command -v clang++-14 || true)
if [ -z "$compiler" ]; then
  echo "check_sanitizers: clang++ not found after scripts/install_test_deps.sh" >&2
  exit 2
fi
# Debian's LibTorch: the suppressions name what its libraries (not instrumented) report.
parsing_layers='/src/(util|config|data|evaluation|assign|losses)/'
# -O1, as the sanitizers' documentation advises: their reports keep their frames, and the build
# is a quarter faster than at -O3.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
  -DCMAKE_CXX_COMPILER="$compiler" \
  -DOLV2_SANITIZE=ON -DOLV2_FUZZ=ON -DOLV2_SOURCE_REGEX="$parsing_layers" \
  -DOLV2_LIBTORCH=debian >/dev/null
test_executables=(unit_util_tests unit_config_tests unit_data_tests unit_evaluation_tests)
cmake --build "$build" -j2 --target "${test_executables[@]}" make_synthetic_data fuzz_targets

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0"
export LSAN_OPTIONS="suppressions=$suppressions/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="suppressions=$suppressions/ubsan.supp:print_stacktrace=1:halt_on_error=1"
export OMP_NUM_THREADS=1
export OLV2_BIN_DIR=$PWD/$build/bin

# What runs below runs $jobs at a time (each on one thread), each writing to a log of its own
# that is shown when it fails.
jobs=$(nproc)
logs=$build/logs
rm -rf "$logs"
mkdir -p "$logs"
pids=()
names=()
# Waits for the oldest of the running ones; prints its log when it failed and records its name.
wait_oldest() {
  local pid=${pids[0]} name=${names[0]}
  pids=("${pids[@]:1}")
  names=("${names[@]:1}")
  if ! wait "$pid"; then
    failed+=("$name")
    tail -40 "$logs/$name.log" >&2
  fi
  cat "$logs/$name.summary" 2>/dev/null || true
}
# Runs "$@" in the background as `name`, once fewer than $jobs run.
start() {
  local name=$1
  shift
  [ ${#pids[@]} -lt "$jobs" ] || wait_oldest
  "$@" >"$logs/$name.log" 2>&1 &
  pids+=($!)
  names+=("$name")
}
finish() {
  while [ ${#pids[@]} -gt 0 ]; do wait_oldest; done
}
failed=()

if [ "$run_tests" = 1 ]; then
  for executable in "${test_executables[@]}"; do
    echo "check_sanitizers: $executable under ASan + UBSan"
    start "$executable" "$build/tests/$executable" --gtest_brief=1
  done
  finish
  if [ ${#failed[@]} -gt 0 ]; then
    echo "check_sanitizers: ${failed[*]} failed under the sanitizers (logs in $logs)" >&2
    exit 1
  fi
fi

if [ "$run_fuzz" = 1 ]; then
  corpus=$build/fuzz-corpus
  findings=$build/fuzz-findings
  rm -rf "$corpus" "$findings"
  mkdir -p "$corpus"/{config_yaml,frame_json,collection_json,results_json,pth,jpeg,devkit_pickle} \
    "$findings"
  for config in configs/*.yaml configs/tests/*.yaml configs/fixtures/*.yaml; do
    cp "$config" "$corpus/config_yaml/$(echo "$config" | tr / _)"
  done
  cp tests/data/pth/*.pth "$corpus/pth/"
  cp tests/fuzz/seeds/results/*.json "$corpus/results_json/"
  cp tests/fuzz/seeds/pickles/*.pkl "$corpus/devkit_pickle/"
  data=$build/fuzz-data
  rm -rf "$data" "$data-ls"
  "$build/bin/make_synthetic_data" --out-dir "$data" --frames 4 --val-frames 2 --image-scale 0.03 \
    >/dev/null
  cp "$data"/data_dict_synthetic.json "$corpus/collection_json/"
  "$build/bin/make_synthetic_data" --out-dir "$data-ls" --frames 2 --val-frames 1 --no-images \
    --format lane-segment >/dev/null
  find "$data" "$data-ls" -path '*/info/*.json' | head -6 | while read -r f; do
    cp "$f" "$corpus/frame_json/$(basename "$(dirname "$(dirname "$f")")")_$(basename "$f")"
  done
  find "$data" -name '*.jpg' | head -6 | while read -r f; do
    cp "$f" "$corpus/jpeg/$(echo "$f" | md5sum | cut -c1-8).jpg"
  done
  # A fuzz target's whole log stays in $findings; the one under $logs gets its end when the
  # target fails, and $logs/<name>.summary its closing statistics.
  fuzz() {
    local target=$1 status=0
    "$build/fuzz/fuzz_$target" "$corpus/$target" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=4096 -max_len=262144 -artifact_prefix="$findings/$target/" \
      -print_final_stats=1 >"$findings/$target.log" 2>&1 || status=$?
    if [ $status != 0 ]; then
      tail -40 "$findings/$target.log"
    fi
    grep -E "^stat::number_of_executed_units|^#[0-9]+.*DONE" "$findings/$target.log" | tail -2 |
      sed "s/^/fuzz_$target: /" >"$logs/fuzz_$target.summary" || true
    return $status
  }
  for target in config_yaml frame_json collection_json results_json pth jpeg devkit_pickle; do
    mkdir -p "$findings/$target"
    echo "check_sanitizers: fuzz_$target for $seconds s"
    start "fuzz_$target" fuzz "$target"
  done
  finish
  if [ ${#failed[@]} -gt 0 ]; then
    echo "check_sanitizers: findings in ${failed[*]} (see $findings)" >&2
    exit 1
  fi
fi
echo "check_sanitizers: passed"
