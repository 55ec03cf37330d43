#!/usr/bin/env bash
# Installs the dependencies (scripts/install_test_deps.sh, which runs scripts/install_deps.sh),
# builds (Release) and runs every test: the project's one test command. Then lists the test
# cases that skipped; under CI=true one that tests/expected_skips.txt does not name is a
# failure (scripts/check_skipped_tests.py).
#
#   scripts/test.sh           against the default LibTorch (PyTorch 2.11's, with CUDA; the build
#                             GPU users make, run here on the CPU), in build/
#   scripts/test.sh debian    against Debian's LibTorch 1.13 (CPU), in build-debian/: the tests
#                             labelled every_libtorch (unit, parity, and the end-to-end tests
#                             whose outcome can differ between LibTorch versions, listed in
#                             tests/CMakeLists.txt), building only what those run, at -O1 (the
#                             tests check LibTorch's API and numbers, which our optimisation
#                             level does not change; -O1 compiles in a quarter less time)
#   scripts/test.sh gpu-bundle
#                             against the default LibTorch and gpu_bundle/'s libraries (made
#                             beforehand by scripts/prepare_gpu_bundle.sh), configured as
#                             scripts/gpu_check.sh configures its build, in build-gpu/: CI's
#                             build, so that the GPU check's rehearsal after it compiles nothing
set -euo pipefail
cd "$(dirname "$0")/.."
libtorch=${1:-venv}
targets=()
options=()
case $libtorch in
  venv) build=build labels=() ;;
  gpu-bundle) build=build-gpu labels=() ;;
  debian) build=build-debian labels=(-L every_libtorch) targets=(--target every_libtorch)
          options=(-DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG") ;;
  *) echo "$0: unknown LibTorch \`$libtorch\`; expected venv, debian or gpu-bundle" >&2; exit 2 ;;
esac
bash scripts/install_test_deps.sh
if [ "$libtorch" = gpu-bundle ]; then
  bash scripts/configure_gpu_build.sh "$build" "$PWD/.venv/bin/python" "$PWD/$build/cuda-links"
else
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOLV2_SOURCE_REGEX= \
    -DOLV2_LIBTORCH="$libtorch" "${options[@]}"
fi
cmake --build "$build" -j2 "${targets[@]}"
rm -rf "$build/test-results"
ctest --test-dir "$build" -j2 --output-on-failure "${labels[@]}"
/usr/bin/python3 scripts/check_skipped_tests.py "$build/test-results" tests/expected_skips.txt
