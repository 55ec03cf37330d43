#!/usr/bin/env bash
# Prints the include directory of PyTorch's Windows LibTorch (the version given, 2.11.0 by
# default), fetching it on first use: the Windows wheel on the Python package index (win_amd64,
# CPython 3.11) carries LibTorch's headers in torch/include, which go to
# ${XDG_CACHE_HOME:-$HOME/.cache}/olv2/windows-libtorch-VERSION/include, outside the checkout,
# and are reused from there. Only the headers are kept: nothing here links against the wheel's
# import libraries (torch/lib/*.lib, MSVC's), see check_windows_build.sh.
# Usage: scripts/fetch_windows_libtorch.sh [VERSION]
set -euo pipefail
cd "$(dirname "$0")/.."

version=${1:-2.11.0}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/olv2/windows-libtorch-$version
if [ -f "$cache/include/torch/csrc/api/include/torch/torch.h" ]; then
  echo "$cache/include"
  exit 0
fi

fail() {
  echo "fetch_windows_libtorch: $*" >&2
  exit 1
}
# Debian's Python with its pip, else the project's virtual environment (scripts/install_deps.sh).
python=
for candidate in /usr/bin/python3 .venv/bin/python; do
  if [ -x "$candidate" ] && "$candidate" -m pip --version >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
[ -n "$python" ] || fail "no pip to fetch the wheel with (apt-get install python3-pip, or run scripts/install_deps.sh)"

mkdir -p "$(dirname "$cache")"
partial=$(mktemp -d "$cache.partial.XXXXXX")
trap 'rm -rf "$partial"' EXIT
if ! "$python" -m pip download --quiet --no-deps --only-binary=:all: --platform win_amd64 \
    --python-version 3.11 --implementation cp "torch==$version" -d "$partial" \
    >"$partial/pip.log" 2>&1; then
  fail "cannot download the Windows wheel of torch==$version from the Python package index:" \
       "$(grep -v '^\s*$' "$partial/pip.log" | tail -1)"
fi
wheel=$(find "$partial" -name "torch-$version-*win_amd64.whl" | head -1)
[ -n "$wheel" ] || fail "pip downloaded no Windows wheel of torch==$version"
"$python" - "$wheel" "$partial" <<'EOF' || fail "cannot unpack torch/include from $wheel"
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    wheel.extractall(sys.argv[2], [name for name in wheel.namelist()
                                   if name.startswith("torch/include/")])
EOF
[ -f "$partial/torch/include/torch/csrc/api/include/torch/torch.h" ] ||
  fail "the Windows wheel of torch==$version has no torch/include/torch/csrc/api/include/torch/torch.h"
mkdir -p "$partial/result"
mv "$partial/torch/include" "$partial/result/include"
# Another run may have finished first; its copy is as good.
mv -T "$partial/result" "$cache" 2>/dev/null || [ -f "$cache/include/torch/csrc/api/include/torch/torch.h" ] ||
  fail "cannot move the headers into $cache"
echo "$cache/include"
