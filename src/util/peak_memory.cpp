#include "olv2/util/peak_memory.h"

#include "olv2/util/platform.h"

#ifdef OLV2_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace olv2 {

int64_t peak_memory_mb(const c10::Device& device) {
#ifdef OLV2_WITH_CUDA
  if (device.is_cuda()) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
    // StatType::AGGREGATE, the first statistic in every version; the enum has moved between
    // namespaces (c10::cuda::CUDACachingAllocator, then c10::CachingAllocator).
    constexpr size_t kAggregate = 0;
    return stats.allocated_bytes[kAggregate].peak / (1024 * 1024);
  }
#endif
  (void)device;
  return platform::peak_resident_bytes() / (1024 * 1024);
}

std::string peak_memory_description(const c10::Device& device) {
  if (device.is_cuda()) return "max_memory_allocated of " + device.str() + " (MB)";
  return "peak resident memory of the process (MB)";
}

}  // namespace olv2
