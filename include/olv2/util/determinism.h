#pragma once
// Deterministic algorithms for a run, mmdet's `set_random_seed(deterministic=True)`, and how they
// are reported.
#include <c10/core/Device.h>

#include <string>

namespace olv2 {

// mmdet's set_random_seed(deterministic=True) for a run on `device`: deterministic algorithms,
// cuDNN deterministic with benchmarking off, and cuBLAS told to use a fixed workspace
// (CUBLAS_WORKSPACE_CONFIG, unless already set) as CUDA needs for reproducible matrix products.
// On the CPU an op without a deterministic implementation raises. On CUDA one op of the models
// has none, the backward of grid_sample (the multi-scale deformable attention of
// BaselineLarge), so there the mode only warns, and that op stays nondeterministic
// (`deterministic_algorithms_description` names it). Call before any CUDA work.
void use_deterministic_algorithms(const c10::Device& device);

// Whether deterministic algorithms are in force in this process.
bool deterministic_algorithms();

// "false", "true", or on CUDA "true, warn only: ... nondeterministic", for the environment block.
std::string deterministic_algorithms_description();

}  // namespace olv2
