#!/usr/bin/env bash
# Configures BUILD_DIR as the GPU machine's build: against the LibTorch inside PYTHON's PyTorch
# and gpu_bundle/'s libraries (scripts/prepare_gpu_bundle.sh), never a system copy of either.
# scripts/gpu_check.sh runs it as its configure stage; `scripts/test.sh gpu-bundle` (CI's main
# build) runs it too, so that the GPU check's rehearsal after it finds the same arguments, the
# same build.ninja and nothing left to compile.
#
# Every configure starts from no cache (an earlier one's findings, another LibTorch, never
# stick), and one that fails leaves no build.ninja behind. PyTorch's package directory (its
# lib/ holds libtorch.so) goes on the prefix path beside its CMake packages, before the bundle:
# a LibTorch installed elsewhere is never picked up instead. Caffe2's config enables CMake's
# CUDA language, whose identification compiles with the host compiler: nvcc must not refuse a
# compiler newer than it knows (nothing here compiles CUDA). LINKS_DIR holds the unversioned
# CUDA development links that scripts/gpu_check_environment.py makes where they are missing.
#
#   scripts/configure_gpu_build.sh BUILD_DIR PYTHON LINKS_DIR
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 BUILD_DIR PYTHON LINKS_DIR" >&2
  exit 2
fi
build=$1 python=$2 links=$3
cd "$(dirname "$0")/.."
bundle=$PWD/gpu_bundle
if [ ! -d "$bundle/lib/cmake" ]; then
  echo "configure_gpu_build: $bundle not found; make it with scripts/prepare_gpu_bundle.sh" >&2
  exit 2
fi
if ! torch_dir=$("$python" -c 'import os, torch; print(os.path.dirname(torch.__file__))'); then
  echo "configure_gpu_build: $python cannot import torch" >&2
  exit 2
fi
rm -f "$build/build.ninja" "$build/CMakeCache.txt"
exec cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DOLV2_LIBTORCH=prefix -DOLV2_TORCH_PYTHON="$python" -DOLV2_SOURCE_REGEX= \
  -DCMAKE_PREFIX_PATH="$torch_dir/share/cmake;$torch_dir;$bundle" \
  -DCMAKE_LIBRARY_PATH="$links" -DCMAKE_CUDA_FLAGS=-allow-unsupported-compiler \
  -DProtobuf_INCLUDE_DIR="$bundle/include" -DProtobuf_LIBRARY="$bundle/lib/libprotobuf.so.32" \
  -DProtobuf_PROTOC_EXECUTABLE="$bundle/bin/protoc"
