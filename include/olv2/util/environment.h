#pragma once
// What a run logs about its environment at start, as mmdet's collect_env, and the version string.
#include <c10/core/Device.h>

#include <string>
#include <utility>
#include <vector>

namespace olv2 {

// The BLAS LibTorch's matrix products run on: MKL where LibTorch has it built in (PyTorch's
// builds), else the BLAS shared library mapped into this process (OpenBLAS or the reference
// one behind Debian's libblas.so.3), as a path.
std::string loaded_blas_library();

// "<program> <project version> (git <rev>), LibTorch <x.y.z> (<its CUDA build>)".
std::string version_string(const std::string& program);

// What every program's --version prints: version_string(program), then the BLAS in use.
std::string version_report(const std::string& program);

// The block logged at start, like mmdet's collect_env: platform, LibTorch version, CUDA
// availability and devices, threads, BLAS library in use, compiler, git revision, whether
// deterministic algorithms are in force, what the logs' `memory` measures on `device`, config
// path.
// `extra` lines ("key: value") follow, e.g. the world size, rank and backend of the run.
std::string environment_report(const std::string& program, const std::string& config_path,
                               const c10::Device& device,
                               const std::vector<std::pair<std::string, std::string>>& extra = {});

}  // namespace olv2
