#pragma once
// OpenLane-V2's `CustomIPMViewTransformer`: the BEV by inverse perspective mapping of camera
// features onto horizontal planes.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>

#include <array>
#include <cstdint>
#include <memory>
#include <utility>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/models/bev/bev_constructor.h"

namespace olv2 {

struct CustomIpmViewTransformerOptions : BevConstructorOptions {
  int64_t num_cam = 7;
  std::array<double, 3> xbound{-50.0, 50.0, 1.0};  // min, max, step (metres, longitudinal)
  std::array<double, 3> ybound{-25.0, 25.0, 1.0};  // lateral
  std::array<double, 3> zbound{-3.0, 2.0, 0.5};    // heights of the sampled planes
  int64_t out_channels = 128;                      // also the camera feature channels
  // Recomputed in backward as one segment (`model.checkpoint`); not a key of the section.
  bool checkpointed = false;

  // OpenLane-V2's `type: CustomIPMViewTransformer` (every key required).
  static Schema schema();
  static CustomIpmViewTransformerOptions from_config(const ConfigNode& section);
  std::shared_ptr<BevConstructorImpl> build(bool checkpointed) const override;
};

// OpenLane-V2's inverse perspective mapping: every point of a stack of
// horizontal planes is projected into every camera, the camera features are
// sampled bilinearly there and averaged over the cameras that see the point,
// the plane coordinates are appended as 3 channels, and a 3x3 conv merges
// (channels + 3) x levels into the BEV feature. Buffer `bev_planes` [levels,
// ny, nx, 3], parameters `outconvs.*` (PyTorch's default conv init, as the
// original).
class CustomIpmViewTransformerImpl : public BevConstructorImpl {
 public:
  explicit CustomIpmViewTransformerImpl(const CustomIpmViewTransformerOptions& options);

  // cam_feat [B*num_cam, C, h, w] (sample-major), ego2cam [B, num_cam, 4, 4]
  // float32, img_hw the (height, width) that pixel coordinates are normalised
  // by
  // -> BEV [B, out_channels, ny, nx].
  at::Tensor forward(const at::Tensor& cam_feat, const at::Tensor& ego2cam,
                     std::pair<int64_t, int64_t> img_hw);
  // The neck's one level, with the batch's lidar2img as ego2cam and sample 0's front-camera
  // image size, as the original.
  at::Tensor forward(const std::vector<at::Tensor>& levels, const Batch& batch) override;
  void set_dropout(double /*p*/) override {}

  const at::Tensor& bev_planes() const { return bev_planes_; }

 private:
  CustomIpmViewTransformerOptions options_;
  torch::nn::Conv2d outconvs_{nullptr};
  at::Tensor bev_planes_;
};
TORCH_MODULE(CustomIpmViewTransformer);

}  // namespace olv2
