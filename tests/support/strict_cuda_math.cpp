#include "support/strict_cuda_math.h"

#include <ATen/Context.h>

namespace olv2::test {

StrictCudaMath::StrictCudaMath()
    : tf32_cublas_(at::globalContext().allowTF32CuBLAS()),
      tf32_cudnn_(at::globalContext().allowTF32CuDNN()),
      deterministic_cudnn_(at::globalContext().deterministicCuDNN()),
      benchmark_cudnn_(at::globalContext().benchmarkCuDNN()) {
  at::globalContext().setAllowTF32CuBLAS(false);
  at::globalContext().setAllowTF32CuDNN(false);
  at::globalContext().setDeterministicCuDNN(true);
  at::globalContext().setBenchmarkCuDNN(false);
}

StrictCudaMath::~StrictCudaMath() {
  at::globalContext().setAllowTF32CuBLAS(tf32_cublas_);
  at::globalContext().setAllowTF32CuDNN(tf32_cudnn_);
  at::globalContext().setDeterministicCuDNN(deterministic_cudnn_);
  at::globalContext().setBenchmarkCuDNN(benchmark_cudnn_);
}

}  // namespace olv2::test
