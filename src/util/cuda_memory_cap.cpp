#include "olv2/util/cuda_memory_cap.h"

#include <algorithm>
#include <cstdio>

#ifdef OLV2_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>
#endif

#include "olv2/util/error.h"

namespace olv2 {

namespace {

std::string gib_text(double gib) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", gib);
  return text;
}

}  // namespace

std::string apply_cuda_memory_cap(const c10::Device& device, double gib) {
  if (!(gib > 0.0)) {
    throw input_error("--cuda-memory-cap " + std::to_string(gib) + ": expected a size in GiB above 0");
  }
  const std::string cap = "GPU memory cap " + gib_text(gib);
  if (!device.is_cuda()) return cap + ": not applicable on the CPU";
#ifdef OLV2_WITH_CUDA
  cudaDeviceProp properties{};
  const cudaError_t status = cudaGetDeviceProperties(&properties, device.index());
  if (status != cudaSuccess) {
    throw runtime_error(cap + ": cannot read " + device.str() + "'s memory size: " +
                        cudaGetErrorString(status));
  }
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  const double total = static_cast<double>(properties.totalGlobalMem);
  const double fraction = std::min(1.0, gib * kGiB / total);
  c10::cuda::CUDACachingAllocator::setMemoryFraction(fraction, device.index());
  if (fraction == 1.0) {
    return cap + ": no limit, " + device.str() + " has " + gib_text(total / kGiB);
  }
  char text[96];
  std::snprintf(text, sizeof text, ": applied, %.4f of %s's %s", fraction, device.str().c_str(),
                gib_text(total / kGiB).c_str());
  return cap + text;
#else
  return cap + ": not applicable, LibTorch was built without CUDA";
#endif
}

}  // namespace olv2
