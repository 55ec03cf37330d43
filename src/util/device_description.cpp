#include "olv2/util/device_description.h"

#include <fstream>
#include <sstream>

#ifdef OLV2_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

namespace olv2 {

namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    const size_t start = line.find_first_not_of(' ', colon + 1);
    return start == std::string::npos ? "CPU" : line.substr(start);
  }
  return "CPU";
}

double physical_memory_gib() {
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    if (line.rfind("MemTotal:", 0) != 0) continue;
    std::istringstream fields(line.substr(9));
    double kib = 0.0;
    fields >> kib;
    return kib * 1024.0 / kBytesPerGib;
  }
  return 0.0;
}

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
  return {cpu_model_name(), physical_memory_gib()};
}

}  // namespace olv2
