#pragma once

namespace olv2::test {

// For a scope, the GPU's fp32 as the CPU's and the same in every run: TF32 off in matrix
// products and convolutions, and cuDNN's convolutions deterministic and chosen by its
// heuristics, not by timing candidates (which may pick another algorithm each run). The
// previous settings are restored on exit.
class StrictCudaMath {
 public:
  StrictCudaMath();
  ~StrictCudaMath();
  StrictCudaMath(const StrictCudaMath&) = delete;
  StrictCudaMath& operator=(const StrictCudaMath&) = delete;

 private:
  bool tf32_cublas_;
  bool tf32_cudnn_;
  bool deterministic_cudnn_;
  bool benchmark_cudnn_;
};

}  // namespace olv2::test
