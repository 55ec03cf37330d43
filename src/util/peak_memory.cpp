#include "olv2/util/peak_memory.h"

#include "olv2/util/platform.h"

#ifdef OLV2_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace olv2 {

namespace {

constexpr int64_t kMiB = 1024 * 1024;

#ifdef OLV2_WITH_CUDA
// StatType::AGGREGATE, the first statistic in every version; the enum has moved between
// namespaces (c10::cuda::CUDACachingAllocator, then c10::CachingAllocator), and so has the
// DeviceStats type.
constexpr size_t kAggregate = 0;

auto cuda_allocator_stats(const c10::Device& device) {
  return c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
}
#endif

}  // namespace

int64_t peak_memory_mb(const c10::Device& device) {
#ifdef OLV2_WITH_CUDA
  if (device.is_cuda()) return cuda_allocator_stats(device).allocated_bytes[kAggregate].peak / kMiB;
#endif
  (void)device;
  return platform::peak_resident_bytes() / kMiB;
}

std::optional<int64_t> peak_reserved_memory_mb(const c10::Device& device) {
#ifdef OLV2_WITH_CUDA
  if (device.is_cuda()) return cuda_allocator_stats(device).reserved_bytes[kAggregate].peak / kMiB;
#endif
  (void)device;
  return std::nullopt;
}

std::string peak_memory_description(const c10::Device& device) {
  if (device.is_cuda()) return "max_memory_allocated of " + device.str() + " (MB)";
  return "peak resident memory of the process (MB)";
}

}  // namespace olv2
