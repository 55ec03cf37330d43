#pragma once
// The first stage of every camera detector: each camera's image through the backbone and the
// neck (`extract_feat`), optionally checkpointed, inside the profiler scopes the benchmarks split
// a step by.
#include <ATen/core/Tensor.h>
#include <ATen/record_function.h>

#include <vector>

#include "olv2/models/backbones/backbone.h"
#include "olv2/models/necks/neck.h"

namespace olv2 {

// Runs `run` inside a profiler scope named `scope` (`olv2::stage::<stage>`), which profilers and
// the benchmarks' stage split see.
template <typename F>
auto in_stage(const char* scope, F&& run) {
  RECORD_FUNCTION(scope, std::vector<c10::IValue>());
  return run();
}

// images [B, N_cam, 3, H, W] -> the neck's levels, each [B, N_cam, C, h, w]. `checkpointed`
// (a detector passes it while training): backbone and neck are one segment recomputed in
// backward, when gradients are recorded.
std::vector<at::Tensor> multi_view_features(BackboneImpl& backbone, NeckImpl& neck,
                                            const at::Tensor& images, bool checkpointed);

}  // namespace olv2
