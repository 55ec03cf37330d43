#!/usr/bin/env bash
# Compiles the Windows side of the project with Debian's MinGW-w64 cross compiler, as far as a
# machine without Windows and without a Windows LibTorch can: the platform layer's Windows
# branch as an object file (warnings are errors), and every other source that includes no
# LibTorch header with -fsyntax-only against the same third-party headers the Linux build uses.
# Sources that include LibTorch are listed as not checked. Exit status 0 when everything
# checked compiles.
set -euo pipefail
cd "$(dirname "$0")/.."

compiler=x86_64-w64-mingw32-g++-posix
if ! command -v "$compiler" >/dev/null; then
  echo "check_windows_build: $compiler not found (apt-get install g++-mingw-w64-x86-64-posix)" >&2
  exit 2
fi

out=build/windows-check
rm -rf "$out"
mkdir -p "$out/include"
# Only the header-only parts of the Linux include tree: all of /usr/include would bring glibc's
# headers in front of MinGW's.
for dir in nlohmann yaml-cpp spdlog fmt CLI; do ln -s "/usr/include/$dir" "$out/include/$dir"; done
ln -s /usr/include/opencv4/opencv2 "$out/include/opencv2"
ln -s /usr/include/google "$out/include/google"
# The TensorBoard messages, generated as the build generates them.
mkdir -p "$out/include/tensorboard"
protoc --proto_path=third_party/tensorboard --cpp_out="$out/include/tensorboard" \
  third_party/tensorboard/event.proto
flags=(-std=c++17 -Wall -Wextra -Iinclude -Isrc/apps -I"$out/include" -DSPDLOG_FMT_EXTERNAL
       -DOLV2_GIT_REVISION=\"check\" -DOLV2_COMPILER=\"mingw\")

"$compiler" "${flags[@]}" -Werror -c src/util/platform_windows.cpp -o "$out/platform_windows.o"
echo "check_windows_build: src/util/platform_windows.cpp compiles to a Windows object"

checked=0
failed=()
while read -r source; do
  [ "$source" = src/util/platform_posix.cpp ] && continue
  [ "$source" = src/util/platform_windows.cpp ] && continue
  if "$compiler" "${flags[@]}" -fsyntax-only "$source" 2>"$out/errors.txt"; then
    checked=$((checked + 1))
  else
    failed+=("$source")
    sed 's/^/  /' "$out/errors.txt" | head -20 >&2
  fi
done < <(cmake -DOLV2_SOURCE_DIR="$PWD" -P cmake/ListTorchFreeSources.cmake)

all=$(find src -name '*.cpp' | wc -l)
echo "check_windows_build: $checked more sources without LibTorch compile for Windows;" \
     "$((all - checked - 2 - ${#failed[@]})) sources that include LibTorch are not checked"
if [ ${#failed[@]} -gt 0 ]; then
  echo "check_windows_build: ${#failed[@]} do not compile for Windows: ${failed[*]}" >&2
  exit 1
fi
