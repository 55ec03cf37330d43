#include "olv2/util/determinism.h"

#include <ATen/Context.h>

#include "olv2/util/platform.h"

namespace olv2 {

void use_deterministic_algorithms() {
  platform::set_environment_default("CUBLAS_WORKSPACE_CONFIG", ":4096:8");
  at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/false);
  at::globalContext().setDeterministicCuDNN(true);
  at::globalContext().setBenchmarkCuDNN(false);
}

bool deterministic_algorithms() { return at::globalContext().deterministicAlgorithms(); }

}  // namespace olv2
