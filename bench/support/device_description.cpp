#include "device_description.h"

#include "olv2/util/platform.h"

#ifdef OLV2_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

namespace olv2 {

namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;

}  // namespace

DeviceDescription describe_device(const c10::Device& device) {
#ifdef OLV2_WITH_CUDA
  if (device.is_cuda()) {
    const cudaDeviceProp* properties =
        at::cuda::getDeviceProperties(device.has_index() ? device.index() : 0);
    return {properties->name, static_cast<double>(properties->totalGlobalMem) / kBytesPerGib};
  }
#endif
  if (device.is_cuda()) return {"CUDA device (this build has no CUDA)", 0.0};
  return {platform::cpu_model_name(),
          static_cast<double>(platform::physical_memory_bytes()) / kBytesPerGib};
}

}  // namespace olv2
