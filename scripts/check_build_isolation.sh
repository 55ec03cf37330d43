#!/usr/bin/env bash
# Checks that a build made against gpu_bundle/ took nothing from a system copy of a dependency,
# which the GPU machine does not have: every header the compiler read (ninja's dependency log)
# comes from the checkout (the bundle and the build directory included), PyTorch, the CUDA
# toolkit, the compiler or the C library, never from a dependency's folder under /usr/include
# or /usr/local/include; and every shared library the built programs load comes from the
# bundle, PyTorch (its nvidia-* packages included), the CUDA toolkit, or the C and C++ runtimes.
#
#   scripts/check_build_isolation.sh BUILD_DIR TORCH_DIR PROGRAM...
#
# Exit status 0 when isolated, 1 when something came from outside (each listed), 2 for bad
# arguments.
set -euo pipefail
if [ $# -lt 3 ] || [ ! -f "$1/build.ninja" ]; then
  echo "usage: $0 BUILD_DIR TORCH_DIR PROGRAM... (BUILD_DIR with a build.ninja)" >&2
  exit 2
fi
build=$1 torch_dir=$2
shift 2
cd "$(dirname "$0")/.."
root=$PWD
site_packages=$(dirname "$(realpath "$torch_dir")")
toolkit=/usr/local/cuda
if command -v nvcc >/dev/null; then toolkit=$(dirname "$(dirname "$(realpath "$(command -v nvcc)")")"); fi

# The folders of the dependencies the bundle provides, as Debian installs them.
dependency_headers='^/usr/(local/)?include/(gloo|yaml-cpp|spdlog|fmt|opencv4|nlohmann|CLI|google|gtest|gmock|torch|c10|ATen|caffe2|tensorpipe|protobuf)/'
foreign_headers=$(ninja -C "$build" -t deps | awk '/^    \//{print $1}' | LC_ALL=C sort -u |
  grep -E "$dependency_headers" || true)

# Libraries every glibc/libstdc++ system has, the compiler's OpenMP runtime and the driver's.
system_libs='^(linux-vdso|ld-linux-x86-64|libc|libm|libmvec|libdl|libpthread|librt|libutil|libstdc\+\+|libgcc_s|libgomp|libcuda|libnvidia-ml)\.so'
foreign_libraries=""
for program in "$@"; do
  while read -r name resolved; do
    [[ $name =~ $system_libs ]] && continue
    real=$(realpath "$resolved" 2>/dev/null || echo "$resolved")
    case $real in
      "$root"/* | "$site_packages"/* | "$toolkit"/* | /usr/local/cuda*/*) continue ;;
    esac
    foreign_libraries+="$program: $name from $resolved"$'\n'
  done < <(ldd "$program" | awk '$2 == "=>" {print $1, ($3 == "not" ? "(not found)" : $3)}')
done

status=0
if [ -n "$foreign_headers" ]; then
  echo "check_build_isolation: headers read from a system copy of a dependency:" >&2
  sed 's/^/  /' <<<"$foreign_headers" | head -20 >&2
  status=1
fi
if [ -n "$foreign_libraries" ]; then
  echo "check_build_isolation: libraries loaded from outside the bundle, PyTorch and the toolkit:" >&2
  sed 's/^/  /' <<<"${foreign_libraries%$'\n'}" >&2
  status=1
fi
[ $status = 0 ] && echo "check_build_isolation: $(ninja -C "$build" -t deps | awk '/^    \//' |
  sort -u | wc -l) headers and the libraries of $# programs, none from a system copy of a dependency"
exit $status
