#include "olv2/util/determinism.h"

#include <ATen/Context.h>

#include <cstdlib>

namespace olv2 {

void use_deterministic_algorithms() {
  ::setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", /*overwrite=*/0);
  at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/false);
  at::globalContext().setDeterministicCuDNN(true);
  at::globalContext().setBenchmarkCuDNN(false);
}

bool deterministic_algorithms() { return at::globalContext().deterministicAlgorithms(); }

}  // namespace olv2
