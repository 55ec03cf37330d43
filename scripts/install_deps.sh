#!/usr/bin/env bash
# Installs every build, test and runtime dependency: Debian 12 packages (and the extra ones
# named as arguments, for scripts that need more), and PyTorch 2.11.0 with
# its CUDA libraries from the Python package index into the project's git-ignored virtual
# environment (.venv), whose LibTorch is the one CMake builds against by default
# (cmake/SelectLibTorch.cmake). Idempotent and non-interactive; run as root (or with sudo
# available).
#
# PyTorch is pinned: 2.11.0 is the version of the GPU machines the project is checked on, and
# from 2.12 on LibTorch needs C++20. Its wheel brings the CUDA libraries libtorch_cuda needs at
# link and load time (cuSPARSELt, NVSHMEM and cuFile are in no CUDA toolkit package); programs
# built against it run on machines without a GPU or driver.
#
# Note: libopenblas0-openmp switches the system-wide `libblas.so.3` alternative to OpenBLAS
# (which shares LibTorch's OpenMP thread pool). Debian's LibTorch otherwise runs its matrix
# products on the reference BLAS: measured at 7.5 GFLOP/s against 106 GFLOP/s with OpenBLAS.
# This also affects every other program on the machine that uses libblas.so.3 (python3-torch,
# numpy), so compare timings only between runs on the same BLAS. PyTorch's own LibTorch has MKL
# built in.
set -euo pipefail
cd "$(dirname "$0")/.."

readonly torch_version=2.11.0
packages=(
  build-essential cmake ninja-build ccache git pkg-config
  libtorch-dev libgloo-dev
  libyaml-cpp-dev libspdlog-dev libcli11-dev libopencv-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev
  protobuf-compiler libprotobuf-dev
  libopenblas0-openmp
  g++-mingw-w64-x86-64-posix clang-14 libfuzzer-14-dev
  python3-venv python3-torch python3-numpy python3-scipy python3-yaml python3-iso3166
  python3-opencv python3-tqdm
  "$@"
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#packages[@]} Debian packages already installed"
else
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  echo "install_deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Debian's Python: the venv must not depend on whichever python3 comes first on PATH.
if [ ! -x .venv/bin/python ]; then
  /usr/bin/python3 -m venv .venv
fi
if .venv/bin/python -c "import torch, numpy, sys; sys.exit(torch.__version__.split('+')[0] != '$torch_version')" 2>/dev/null; then
  echo "install_deps: PyTorch $torch_version already in .venv"
else
  echo "install_deps: installing PyTorch $torch_version (with its CUDA libraries) and numpy into .venv"
  .venv/bin/pip install --quiet --progress-bar off "torch==$torch_version" numpy
fi

# The official OpenLane-V2 devkit, the test oracle of `evaluate` (tests/oracle/): its releases
# 1.1.0 (tag v1.1.0, file for file) and 1.0.0 (tag v1.0.0), each in its own folder, in a second
# virtual environment on Debian's Python, whose numpy 1.x is the devkit's era (the devkit pins
# numpy < 1.24; PyTorch's .venv has numpy 2, whose percentile rounding, which the v1.0 metrics
# use, changed in 2.0.1). Its other imports come from Debian (scipy, opencv, tqdm, iso3166) and
# from here: similaritymeasures, and OR-tools, whose Python 3.11 releases no longer have the
# `pywrapgraph` module the devkit imports (the oracle adapts the newer API).
readonly devkit_env=.venv-devkit
if [ ! -x "$devkit_env/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$devkit_env"
fi
if "$devkit_env/bin/python" -c "import similaritymeasures, ortools" 2>/dev/null &&
  [ -d "$devkit_env/devkit-1.1.0/openlanev2" ] && [ -d "$devkit_env/devkit-1.0.0/openlanev2" ]; then
  echo "install_deps: the OpenLane-V2 devkit 1.1.0 and 1.0.0 already in $devkit_env"
else
  echo "install_deps: installing the OpenLane-V2 devkit 1.1.0 and 1.0.0 into $devkit_env"
  "$devkit_env/bin/pip" install --quiet --progress-bar off similaritymeasures==1.5.0 \
    ortools==9.5.2237
  for version in 1.1.0 1.0.0; do
    "$devkit_env/bin/pip" install --quiet --progress-bar off --no-deps --upgrade \
      --target "$devkit_env/devkit-$version" "openlanev2==$version"
  done
fi
