#pragma once

namespace olv2 {

// mmdet's set_random_seed(deterministic=True): deterministic algorithms (an op without a
// deterministic implementation raises), cuDNN deterministic with benchmarking off, and cuBLAS
// told to use a fixed workspace (CUBLAS_WORKSPACE_CONFIG, unless already set) as CUDA needs
// for reproducible matrix products. Call before any CUDA work.
void use_deterministic_algorithms();

// Whether deterministic algorithms are in force in this process.
bool deterministic_algorithms();

}  // namespace olv2
