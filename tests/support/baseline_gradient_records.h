#pragma once
// Which of the original Baseline's gradient records (tests/data/gradients/README.md) this CPU is
// compared with. The Baseline's BatchNorm backward amplifies the last bits of its convolutions'
// backward into its early gradients, and Debian's torch picks its oneDNN convolution and
// OpenBLAS kernels by the CPU: the original on a CPU without AVX-512 is up to 3.9e-3 from its
// own records of an AVX-512 CPU (layer3.0.bn1.bias). So there is a record set per kernel family.
#include <filesystem>
#include <string>

namespace olv2::test {

struct BaselineGradientRecords {
  // original_one_frame.pt, original_batch_two.pt, original_two_ranks.pt (two_frames.pt, the
  // input, is tests/data/gradients/'s for both).
  std::filesystem::path dir;
  // How far (relative L2, per tensor) ours may be from them.
  double tolerance;
  // The tolerance as probe_model prints it ("1e-05").
  std::string tolerance_text() const;
};

// tests/data/gradients/ (an AVX-512 CPU's; gradient_parity_tolerance()) on a CPU with AVX-512,
// else tests/data/gradients/avx2/ (an AVX2 AMD EPYC's) with 1.5e-4: there the original itself
// moves its gradients by up to 6.0e-5 between 1 and 2 threads (the lane head's encoder: OpenBLAS
// splits those products' sums by thread), and ours measured 6.2e-5 from it on both LibTorch
// builds (one frame; a batch of two 2.7e-5).
BaselineGradientRecords baseline_gradient_records();

}  // namespace olv2::test
