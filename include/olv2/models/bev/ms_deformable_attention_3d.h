#pragma once
// BEVFormer's `MSDeformableAttention3D`: deformable sampling around each BEV pillar's projected
// anchors.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/models/attention_registry.h"
#include "olv2/models/ops/ms_deform_attn.h"

namespace olv2 {

struct MsDeformableAttention3dOptions : AttentionOptions {
  int64_t embed_dims = 256;
  int64_t num_heads = 8;
  int64_t num_levels = 4;
  int64_t num_points = 8;  // per level, shared out over the pillar's anchors

  // BEVFormer's `type: MSDeformableAttention3D` (a spatial cross-attention's
  // `deformable_attention`).
  static Schema schema();
  static MsDeformableAttention3dOptions from_config(const ConfigNode& section);
};

// BEVFormer's `MSDeformableAttention3D`: deformable sampling around the D projected anchors of
// each BEV pillar; point p of every level starts from anchor p mod D (num_points must be a
// multiple of D). No output projection, dropout or residual: returns the sampled values.
// Parameters `sampling_offsets`, `attention_weights`, `value_proj`.
class MsDeformableAttention3dImpl : public torch::nn::Module {
 public:
  explicit MsDeformableAttention3dImpl(const MsDeformableAttention3dOptions& options);

  // query [B, Q, E]; value [B, S, E]; reference_points [B, Q, D, 2] -> [B, Q, E] (float32)
  at::Tensor forward(const at::Tensor& query, const at::Tensor& value,
                     const at::Tensor& reference_points, const SpatialShapes& spatial_shapes);

  void reset_parameters();  // the original's init_weights

 private:
  MsDeformableAttention3dOptions options_;
  torch::nn::Linear sampling_offsets_{nullptr};
  torch::nn::Linear attention_weights_{nullptr};
  torch::nn::Linear value_proj_{nullptr};
};
TORCH_MODULE(MsDeformableAttention3d);

}  // namespace olv2
