#pragma once
#include <string>

namespace olv2 {

// "train_ds <project version> (git <rev>), LibTorch <x.y.z>".
std::string version_string();

// The block logged at start, like mmdet's collect_env: platform, LibTorch version, CUDA
// availability and devices, threads, BLAS library in use, compiler, git revision, config path.
std::string environment_report(const std::string& config_path);

}  // namespace olv2
