#pragma once
// The first stage of every camera detector: each camera's image through the backbone and the
// neck (`extract_feat`), optionally checkpointed, inside the profiler scopes the benchmarks split
// a step by.
#include <ATen/core/Tensor.h>
#include <ATen/record_function.h>

#include <vector>

#include "olv2/data/batch.h"
#include "olv2/models/backbones/backbone.h"
#include "olv2/models/heads/object_head.h"
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

// (height, width) of an image's (H, W, C) shape.
std::pair<int64_t, int64_t> image_hw(const std::array<int64_t, 3>& shape);

// What a traffic-element head reads: camera 0's levels [B, C, h, w] of the neck's
// [B, N_cam, C, h, w], and their geometry (the padded input shape, each sample's camera-0 size).
struct FrontCameraInputs {
  std::vector<at::Tensor> levels;
  DetrImageGeometry geometry;
};
FrontCameraInputs front_camera_inputs(const std::vector<at::Tensor>& image_features,
                                      const Batch& batch,
                                      std::pair<int64_t, int64_t> batch_input_shape);

// Decoded boxes [Q, 5] (x1, y1, x2, y2, label) with the front camera's crop offset of `meta` added
// back, as TopoNet's and LaneSegNet's box heads do, rescaled or not; unchanged without a crop.
at::Tensor with_front_crop_offset(const at::Tensor& boxes, const ImageMeta& meta);

}  // namespace olv2
