#pragma once
// Whether this CPU computes in bf16.

namespace olv2 {

// True where the CPU has bf16 arithmetic instructions: AVX512_BF16 or AMX-BF16 on x86 (read with
// CPUID under GCC and Clang; other compilers and architectures are taken to have them). Without
// them LibTorch emulates bf16 convolutions and matrix products: measured forty times slower than
// fp32 with PyTorch 2.11's LibTorch on an AVX2 AMD EPYC, and Debian's LibTorch 1.13 there sums a
// bf16 convolution in bf16 (a 3x3 convolution over 1024 channels a quarter of its output's scale
// from fp32).
bool cpu_has_bf16_instructions();

}  // namespace olv2
