#pragma once
#include <c10/core/Device.h>

#include <string>

namespace olv2 {

// "train_ds <project version> (git <rev>), LibTorch <x.y.z>".
std::string version_string();

// The block logged at start, like mmdet's collect_env: platform, LibTorch version, CUDA
// availability and devices, threads, BLAS library in use, compiler, git revision, whether
// deterministic algorithms are in force, what the logs' `memory` measures on `device`, config
// path.
std::string environment_report(const std::string& config_path, const c10::Device& device);

}  // namespace olv2
