#!/usr/bin/env bash
# Installs what the tests and CI need besides the main job's dependencies: runs
# scripts/install_deps.sh with the packages below (and the extra ones named as arguments, for
# scripts that need more: check_sanitizers.sh), then installs the official OpenLane-V2 devkit
# into .venv-devkit. scripts/test.sh runs it. Idempotent and non-interactive; run as root (or
# with sudo available).
#
# The Debian packages:
# - libtorch-dev: Debian's LibTorch 1.13 (CPU), the second supported build (`scripts/test.sh
#   debian`, the sanitizer build of scripts/check_sanitizers.sh), and libopenblas0-openmp (below);
# - libgmock-dev: GoogleMock beside GoogleTest (which install_deps.sh installs);
# - the Python modules the tests run under Debian's /usr/bin/python3: torch 1.13 (torch.load of
#   the .pth files we write; scripts/torchrun.py, the launcher of the Debian build's ranks;
#   scripts/original_gradients.py), numpy, SciPy (the Hungarian matching's oracle), PyYAML (the
#   configs' round trip), matplotlib (scripts/plot_logs.py, tests/e2e/plot_logs_test.cpp) and
#   the devkit's other imports (iso3166, opencv, tqdm);
# - slurm-wlm and munge: a one-node SLURM (slurmctld, slurmd, srun) that
#   tests/e2e/slurm_distributed_test.cpp starts to run scripts/slurm_train.sh's ranks.
#
# Note: libopenblas0-openmp switches the system-wide `libblas.so.3` alternative to OpenBLAS
# (which shares LibTorch's OpenMP thread pool). Debian's LibTorch otherwise runs its matrix
# products on the reference BLAS: measured at 7.5 GFLOP/s against 106 GFLOP/s with OpenBLAS.
# This also affects every other program on the machine that uses libblas.so.3 (python3-torch,
# numpy), so compare timings only between runs on the same BLAS. PyTorch's own LibTorch has MKL
# built in.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install_deps.sh \
  libtorch-dev libopenblas0-openmp \
  libgmock-dev \
  python3-torch python3-numpy python3-scipy python3-yaml python3-iso3166 python3-opencv \
  python3-tqdm python3-matplotlib python3-shapely \
  slurm-wlm munge \
  "$@"

# The official OpenLane-V2 devkit, the test oracle of `evaluate` (tests/oracle/): its releases
# 1.1.0 (tag v1.1.0, file for file) and 1.0.0 (tag v1.0.0) for lane centerlines and 2.1.0 for
# lane segments (its collect needs shapely, from Debian), each in its own folder, in a second
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
  [ -d "$devkit_env/devkit-1.1.0/openlanev2" ] && [ -d "$devkit_env/devkit-1.0.0/openlanev2" ] &&
  [ -d "$devkit_env/devkit-2.1.0/openlanev2" ]; then
  echo "install_test_deps: the OpenLane-V2 devkit 1.1.0, 1.0.0 and 2.1.0 already in $devkit_env"
else
  echo "install_test_deps: installing the OpenLane-V2 devkit 1.1.0, 1.0.0 and 2.1.0 into $devkit_env"
  "$devkit_env/bin/pip" install --quiet --progress-bar off similaritymeasures==1.5.0 \
    ortools==9.5.2237
  for version in 1.1.0 1.0.0 2.1.0; do
    "$devkit_env/bin/pip" install --quiet --progress-bar off --no-deps --upgrade \
      --target "$devkit_env/devkit-$version" "openlanev2==$version"
  done
fi
