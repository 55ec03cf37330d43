#include "olv2/util/peak_memory.h"

#include <sys/resource.h>

#ifdef OLV2_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace olv2 {

namespace {

int64_t peak_resident_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss / 1024);
}

}  // namespace

int64_t peak_memory_mb(const c10::Device& device) {
#ifdef OLV2_WITH_CUDA
  if (device.is_cuda()) {
    namespace allocator = c10::cuda::CUDACachingAllocator;
    const auto stats = allocator::getDeviceStats(device.index());
    const auto aggregate = static_cast<size_t>(allocator::StatType::AGGREGATE);
    return stats.allocated_bytes[aggregate].peak / (1024 * 1024);
  }
#endif
  (void)device;
  return peak_resident_mb();
}

std::string peak_memory_description(const c10::Device& device) {
  if (device.is_cuda()) return "max_memory_allocated of " + device.str() + " (MB)";
  return "peak resident memory of the process (MB)";
}

}  // namespace olv2
