#include "olv2/models/detectors/multi_view_features.h"

#include <torch/torch.h>

#include "olv2/models/activation_checkpoint.h"

namespace olv2 {

std::vector<at::Tensor> multi_view_features(BackboneImpl& backbone, NeckImpl& neck,
                                            const at::Tensor& images, bool checkpointed) {
  const int64_t num_samples = images.size(0), num_cams = images.size(1);
  const at::Tensor flat =
      images.view({num_samples * num_cams, images.size(2), images.size(3), images.size(4)});
  auto body = [&](const std::vector<at::Tensor>& in) {
    const std::vector<at::Tensor> stages =
        in_stage("olv2::stage::backbone", [&] { return backbone.forward(in[0]); });
    return in_stage("olv2::stage::neck", [&] { return neck.forward(stages); });
  };
  std::vector<at::Tensor> levels;
  if (checkpointed && torch::GradMode::is_enabled()) {
    std::vector<at::Tensor> params = backbone.parameters();
    for (const at::Tensor& p : neck.parameters()) params.push_back(p);
    levels = checkpoint(body, {flat}, params);
  } else {
    levels = body({flat});
  }
  for (at::Tensor& level : levels) {
    level = level.view({num_samples, num_cams, level.size(1), level.size(2), level.size(3)});
  }
  return levels;
}

std::pair<int64_t, int64_t> image_hw(const std::array<int64_t, 3>& shape) {
  return {shape[0], shape[1]};
}

FrontCameraInputs front_camera_inputs(const std::vector<at::Tensor>& image_features,
                                      const Batch& batch,
                                      std::pair<int64_t, int64_t> batch_input_shape) {
  FrontCameraInputs front;
  for (const at::Tensor& level : image_features) front.levels.push_back(level.select(1, 0));
  front.geometry.batch_input_shape = batch_input_shape;
  for (const ImageMeta& meta : batch.metas) {
    front.geometry.img_shapes.push_back(image_hw(meta.img_shape.at(0)));
  }
  return front;
}

at::Tensor with_front_crop_offset(const at::Tensor& boxes, const ImageMeta& meta) {
  if (meta.crop_shape.empty()) return boxes;
  const std::array<int64_t, 2>& crop = meta.crop_shape.front();
  const at::Tensor offset =
      torch::tensor({static_cast<float>(crop[0]), static_cast<float>(crop[1]),
                     static_cast<float>(crop[0]), static_cast<float>(crop[1]), 0.f},
                    boxes.options());
  return boxes + offset;
}

}  // namespace olv2
