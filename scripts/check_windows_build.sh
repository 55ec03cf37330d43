#!/usr/bin/env bash
# Checks that the whole project compiles for Windows, as far as a Linux machine can:
#   1. the platform layer's Windows branch (src/util/platform_windows.cpp) compiles to a Windows
#      object with Debian's MinGW-w64 g++, warnings as errors;
#   2. every source of the Windows build (src/, the apps, bench/ and bench/support/: all but
#      src/util/platform_posix.cpp) passes a syntax and type check for Windows against the
#      headers of PyTorch's Windows LibTorch (scripts/fetch_windows_libtorch.sh fetches them);
#   3. every header of the project (include/, src/, bench/) compiles on its own, so none relies
#      on what a source or a precompiled header happened to include before it (a header that a
#      source includes first, before anything else, is checked by that source's translation
#      unit, which is the header's own up to its end).
# Steps 2 and 3 use Clang targeting MinGW-w64, with MinGW-w64's C headers and its g++'s C++
# library, as the MinGW g++ would but at a quarter of its cost (below). Third-party headers are
# Debian's, as in the Linux build.
#
# Not checked here: linking, and so the Windows executables themselves. LibTorch for Windows is
# built with MSVC: its import libraries and C++ ABI are MSVC's, which MinGW cannot link against.
# Building on Windows needs MSVC (docs/development.md, "Windows (CPU)").
#
# Cost: LibTorch's headers are most of it (<torch/torch.h> alone is 10 s of Clang, 14 s of
# g++), so a file that includes one of the heavy LibTorch headers, directly or through the
# project's own headers, gets that header precompiled (one per heavy header, made here). That
# hides no missing include: the precompiled header is one the file includes anyway, at the top,
# before any code (scripts/unconditional_includes.py), so the file's own code sees exactly what
# it would without it, and the headers it includes before that one are each checked on their
# own (3). Clang loads such a header in about 1 s, g++ its 680 MB one in 4.5 s.
# --no-precompiled-headers checks every file from scratch.
#
# Usage: scripts/check_windows_build.sh [--jobs N] [--no-precompiled-headers] [FILE...]
# (FILE: check only these sources and headers).
# Exit status 0 when everything compiles, 1 when something does not, 2 when the check cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
precompile=1
only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs=${2:-}; shift $(($# > 1 ? 2 : 1))
            [[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "check_windows_build: --jobs needs a count" >&2; exit 2; } ;;
    --no-precompiled-headers) precompile=0; shift ;;
    -*) echo "check_windows_build: unknown option $1" \
             "(usage: $0 [--jobs N] [--no-precompiled-headers] [FILE...])" >&2
        exit 2 ;;
    *) [ -f "$1" ] || { echo "check_windows_build: no file $1" >&2; exit 2; }
       only+=("$1"); shift ;;
  esac
done

readonly torch_version=2.11.0
readonly mingw=x86_64-w64-mingw32-g++-posix
find_clang() { command -v clang++-14 || command -v clang++ || true; }
have_tools() { command -v "$mingw" >/dev/null && command -v protoc >/dev/null && [ -n "$(find_clang)" ]; }
if ! have_tools; then
  echo "check_windows_build: installing MinGW-w64, Clang and protoc (scripts/install_deps.sh)"
  bash scripts/install_deps.sh g++-mingw-w64-x86-64-posix clang-14
fi
if ! have_tools; then
  echo "check_windows_build: $mingw, clang++ or protoc still missing after scripts/install_deps.sh" >&2
  exit 2
fi
clang=$(find_clang)
if ! torch_include=$(bash scripts/fetch_windows_libtorch.sh "$torch_version"); then
  echo "check_windows_build: no Windows LibTorch $torch_version headers, nothing checked" >&2
  exit 2
fi
started=$(date +%s)

out=build/windows-check
rm -rf "$out"
mkdir -p "$out/third_party" "$out/libtorch" "$out/logs" "$out/pch"
# The Windows LibTorch's headers without the fmt and protobuf headers the wheel bundles, which
# the Linux build hides too (cmake/SelectLibTorch.cmake): Debian's are the ones used.
for entry in "$torch_include"/*; do
  case "$(basename "$entry")" in
    fmt | google) ;;
    *) ln -s "$entry" "$out/libtorch/$(basename "$entry")" ;;
  esac
done
# Only the header-only parts of the Linux include tree: all of /usr/include would bring glibc's
# headers in front of MinGW's.
for dir in nlohmann yaml-cpp spdlog fmt CLI gloo google; do
  ln -s "/usr/include/$dir" "$out/third_party/$dir"
done
# Windows' file names ignore case: Gloo includes <BaseTsd.h>, MinGW-w64 names it basetsd.h.
echo '#include <basetsd.h>' >"$out/third_party/BaseTsd.h"
ln -s /usr/include/opencv4/opencv2 "$out/third_party/opencv2"
# The TensorBoard messages, generated as the build generates them.
mkdir -p "$out/third_party/tensorboard"
protoc --proto_path=third_party/tensorboard --cpp_out="$out/third_party/tensorboard" \
  third_party/tensorboard/event.proto

common=(-std=c++17 -Wall -Wextra -Iinclude -Isrc/apps -Ibench/support
        -isystem "$out/libtorch" -isystem "$out/libtorch/torch/csrc/api/include"
        -isystem "$out/third_party"
        -DSPDLOG_FMT_EXTERNAL -DOLV2_GIT_REVISION=\"check\" -DOLV2_COMPILER=\"windows-check\")
if ! "$mingw" "${common[@]}" -Werror -c src/util/platform_windows.cpp -o "$out/platform_windows.o"; then
  echo "check_windows_build: src/util/platform_windows.cpp does not compile to a Windows object" >&2
  exit 1
fi

# LibTorch as its Windows CMake package uses it (share/cmake/Caffe2/Caffe2Targets.cmake: the
# definitions of torch_cpu), in a Release build (NDEBUG: LibTorch's non-MSVC branch then
# declares the __assert_fail its kernel assertions call). C10_USING_CUSTOM_GENERATED_MACROS
# leaves out the generated cmake_macros.h, whose C10_BUILD_SHARED_LIBS makes every TORCH_API
# __declspec(dllimport), which GCC and Clang refuse on the inline member functions LibTorch
# defines with it; MSVC only warns. Without it the export macros expand to nothing.
libtorch_definitions=(-DUSE_DISTRIBUTED -DUSE_C10D_GLOO -DNDEBUG -DC10_USING_CUSTOM_GENERATED_MACROS)
# What the Windows build defines on every target (CMakeLists.txt).
windows_definitions=(-DNOMINMAX -DWIN32_LEAN_AND_MEAN)
# Clang finds MinGW-w64's C headers itself; the C++ library is MinGW g++'s libstdc++.
cxx_headers=()
while read -r dir; do
  cxx_headers+=(-isystem "$dir")
done < <("$mingw" -xc++ -E -v /dev/null 2>&1 | sed -n '/search starts here/,/End of search/p' |
         sed -n 's/^ \(.*\/include\/c++.*\)$/\1/p')
# A response file, quoted as Clang reads it.
printf '%q\n' --target=x86_64-w64-mingw32 -nostdinc++ "${cxx_headers[@]}" "${common[@]}" \
  "${libtorch_definitions[@]}" "${windows_definitions[@]}" >"$out/flags"

sources=$(find src bench -name '*.cpp' ! -path src/util/platform_posix.cpp | sort)
headers=$(find include src bench -name '*.h' | sort)
if [ ${#only[@]} -gt 0 ]; then
  sources=$(printf '%s\n' "${only[@]}" | grep '\.cpp$' || true)
  headers=$(printf '%s\n' "${only[@]}" | grep '\.h$' || true)
fi
heavy_headers=(torch/torch.h torch/nn/module.h ATen/ATen.h ATen/core/Tensor.h)
# Each file with the heaviest of those it includes ("-" for none).
/usr/bin/python3 scripts/unconditional_includes.py --include-dir include --include-dir src/apps \
  --include-dir bench/support "${heavy_headers[@]/#/--find=}" $sources $headers |
  awk -F'\t' -v precompile=$precompile '{ print (precompile && NF > 1 ? $2 : "-"), $1 }' \
  >"$out/plan.txt"
# A header that a source includes first (scripts/unconditional_includes.py --first-include) and
# that gets the same precompiled header as that source is checked on its own by the source's
# check: the two translation units are the same up to the header's end. Only the other headers
# get a translation unit of their own.
touch "$out/covered.txt"
if [ -n "$headers" ]; then
  /usr/bin/python3 scripts/unconditional_includes.py --include-dir include --include-dir src/apps \
    --include-dir bench/support --first-include $sources >"$out/first_includes.txt"
  awk -F'\t' 'FILENAME ~ /first_includes/ { first[$1] = $2; next }
       { split($0, f, " "); pch[f[2]] = f[1]; line[f[2]] = $0; order[++n] = f[2] }
       END {
         for (s in first) if (first[s] != "-" && first[s] in pch && pch[first[s]] == pch[s])
           covered[first[s]] = s
         for (i = 1; i <= n; i++) {
           file = order[i]
           if (file in covered) print file, covered[file] > "'"$out"'/covered.txt"
           else print line[file]
         }
       }' "$out/first_includes.txt" "$out/plan.txt" >"$out/plan.checked.txt"
  mv "$out/plan.checked.txt" "$out/plan.txt"
fi

precompile_header() {
  local header=$1 name=${1//\//_}
  printf '#include <%s>\n' "$header" >"$out/pch/$name.h"
  if ! "$clang" @"$out/flags" -fpch-instantiate-templates -x c++-header "$out/pch/$name.h" \
       -o "$out/pch/$name.pch" >"$out/pch/$name.log" 2>&1; then
    echo "check_windows_build: LibTorch's <$header> does not compile for Windows:" >&2
    sed 's/^/  /' "$out/pch/$name.log" | head -40 >&2
    return 1
  fi
}
# A header is checked as the one include of a translation unit read from stdin.
check_file() {
  local header=$1 file=$2 options=() input
  [ "$header" = - ] || options+=(-include-pch "$out/pch/${header//\//_}.pch")
  case "$file" in
    *.h) options+=(-x c++ -); input="#include \"$file\"" ;;
    *) options+=("$file"); input= ;;
  esac
  local start end status=ok
  start=$(date +%s%N)
  "$clang" @"$out/flags" -fsyntax-only "${options[@]}" <<<"$input" >"$out/logs/${file//\//_}.txt" 2>&1 ||
    status=failed
  end=$(date +%s%N)
  [ $status = failed ] || ! grep -q 'warning:' "$out/logs/${file//\//_}.txt" || status=warnings
  printf '%s %d.%03d %s\n' $status $(((end - start) / 1000000000)) \
    $(((end - start) / 1000000 % 1000)) "$file" >>"$out/results.txt"
}
export out clang
export -f precompile_header check_file

awk '$1 != "-" { print $1 }' "$out/plan.txt" | sort -u |
  xargs -r -P "$jobs" -n 1 bash -c 'precompile_header "$1"' _ || exit 1
touch "$out/results.txt"
xargs -P "$jobs" -n 2 bash -c 'check_file "$1" "$2"' _ <"$out/plan.txt"

failed=$(awk '$1 == "failed" { print $3 }' "$out/results.txt" | sort)
warned=$(awk '$1 == "warnings" { print $3 }' "$out/results.txt" | sort)
for file in $warned $failed; do
  echo "check_windows_build: $file:" >&2
  grep -v '^[0-9]* \(warning\|error\)s\? generated\.$' "$out/logs/${file//\//_}.txt" | head -30 |
    sed 's/^/  /' >&2
done
count() { grep -c . <<<"$1" || true; }
checked="$(count "$sources") sources and $(count "$headers") headers"
[ ${#only[@]} -gt 0 ] || checked="all $checked (every source of the Windows build, every header)"
covered="each header on its own, $(grep -c . "$out/covered.txt" || true) of them as the first include of a source"
seconds=$(($(date +%s) - started))
if [ -n "$failed" ]; then
  echo "check_windows_build: $(count "$failed") of $(wc -l <"$out/plan.txt") files do not compile" \
       "for Windows: "$failed >&2
  exit 1
fi
echo "check_windows_build: $checked compile for Windows against LibTorch $torch_version," \
     "$covered; $(count "$warned") with warnings; $seconds s on $jobs" \
     "process$([ "$jobs" = 1 ] || echo es)"
