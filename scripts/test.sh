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
#                             tests/CMakeLists.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
libtorch=${1:-venv}
case $libtorch in
  venv) build=build labels=() ;;
  debian) build=build-debian labels=(-L every_libtorch) ;;
  *) echo "$0: unknown LibTorch \`$libtorch\`; expected venv or debian" >&2; exit 2 ;;
esac
bash scripts/install_test_deps.sh
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOLV2_SOURCE_REGEX= \
  -DOLV2_LIBTORCH="$libtorch"
cmake --build "$build" -j2
rm -rf "$build/test-results"
ctest --test-dir "$build" -j2 --output-on-failure "${labels[@]}"
/usr/bin/python3 scripts/check_skipped_tests.py "$build/test-results" tests/expected_skips.txt
