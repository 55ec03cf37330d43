#include "olv2/util/determinism.h"

#include <ATen/Context.h>

#include "olv2/util/platform.h"

namespace olv2 {

void use_deterministic_algorithms(const c10::Device& device) {
  platform::set_environment_default("CUBLAS_WORKSPACE_CONFIG", ":4096:8");
  at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/device.is_cuda());
  at::globalContext().setDeterministicCuDNN(true);
  at::globalContext().setBenchmarkCuDNN(false);
}

bool deterministic_algorithms() { return at::globalContext().deterministicAlgorithms(); }

std::string deterministic_algorithms_description() {
  if (!deterministic_algorithms()) return "false";
  if (!at::globalContext().deterministicAlgorithmsWarnOnly()) return "true";
  return "true, warn only: an op without a deterministic CUDA kernel warns and runs "
         "nondeterministically (in these models grid_sampler_2d_backward, the deformable "
         "attention's backward)";
}

}  // namespace olv2
