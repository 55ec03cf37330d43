#include "support/cuda_requirement.h"

#include <cstdlib>

#include "olv2/util/cuda_device.h"

namespace olv2::test {

std::string cuda_unavailable_reason() {
  const CudaSetup setup = cuda_setup();
  if (!setup.built_with_cuda) return "this build's LibTorch has no CUDA";
  if (setup.visible_gpus > 0) return "";
  if (setup.driver.empty()) return "no NVIDIA driver on this machine";
  return "no GPU visible (CUDA_VISIBLE_DEVICES hides them, or the driver finds none)";
}

bool cuda_required() {
  const char* value = std::getenv("OLV2_REQUIRE_CUDA");
  return value != nullptr && std::string(value) == "1";
}

}  // namespace olv2::test
