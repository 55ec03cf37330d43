#!/usr/bin/env bash
# Installs what the main job needs (scripts/demo.sh: build the default configuration, then run
# make_synthetic_data, train_ds and test_ds): Debian 12 packages (and the extra ones named as
# arguments, for scripts that need more: scripts/install_test_deps.sh, check_windows_build.sh,
# check_sanitizers.sh, prepare_gpu_bundle.sh), and PyTorch 2.11.0 with its CUDA libraries from
# the Python package index into the project's git-ignored virtual environment (.venv), whose
# LibTorch is the one CMake builds against by default (cmake/SelectLibTorch.cmake).
# What only the tests and CI use (Debian's LibTorch 1.13, the Python oracles, the OpenLane-V2
# devkit) is scripts/install_test_deps.sh's. Idempotent and non-interactive; run as root (or
# with sudo available).
#
# PyTorch is pinned: 2.11.0 is the version of the GPU machines the project is checked on, and
# from 2.12 on LibTorch needs C++20. Its wheel brings the CUDA libraries libtorch_cuda needs at
# link and load time (cuSPARSELt, NVSHMEM and cuFile are in no CUDA toolkit package); programs
# built against it run on machines without a GPU or driver.
#
# The Debian packages: the compiler and build tools; the Gloo headers (PyTorch's wheels ship
# none, but their ProcessGroupGloo.hpp includes them); yaml-cpp, spdlog, CLI11, OpenCV,
# nlohmann_json; protobuf with protoc, which generates the TensorBoard event messages;
# GoogleTest, because a default configure (OLV2_BUILD_TESTS=ON, scripts/demo.sh's too) finds it
# even when only the programs are built; python3-venv for .venv.
set -euo pipefail
cd "$(dirname "$0")/.."

readonly torch_version=2.11.0
packages=(
  build-essential cmake ninja-build ccache git pkg-config
  libgloo-dev
  libyaml-cpp-dev libspdlog-dev libcli11-dev libopencv-dev nlohmann-json3-dev
  libgtest-dev
  protobuf-compiler libprotobuf-dev
  python3-venv
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
