#pragma once
// BEVFormer's spatial cross-attention: BEV queries sampling the image tokens of the cameras that
// see them.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/models/attention_registry.h"
#include "olv2/models/bev/bev_reference_points.h"
#include "olv2/models/bev/ms_deformable_attention_3d.h"

namespace olv2 {

struct SpatialCrossAttentionOptions : AttentionOptions {
  int64_t embed_dims = 256;
  int64_t num_cams = 7;
  double dropout = 0.1;  // on the output, before the residual sum
  MsDeformableAttention3dOptions deformable_attention;

  // BEVFormer's `type: SpatialCrossAttention` as an `attn_cfgs` entry (its `pc_range` and
  // `batch_first` are accepted: the encoder's range and layout apply).
  static Schema schema();
  static SpatialCrossAttentionOptions from_config(const ConfigNode& section);
};

// BEVFormer's spatial cross-attention: every BEV query samples the image tokens of each camera
// that sees its pillar (`deformable_attention`), the per-camera results are averaged over those
// cameras, and the residual is query + Dropout(output_proj(average)). Queries no camera sees
// get output_proj(0). As in the original, each camera processes only the queries it selects,
// padded to the longest selection. Batch-first.
// Original behaviour: which queries a camera updates is decided by sample 0's visibility for
// every sample, while the divisor counts each sample's own cameras (spec §9 item 6).
class SpatialCrossAttentionImpl : public torch::nn::Module {
 public:
  explicit SpatialCrossAttentionImpl(const SpatialCrossAttentionOptions& options);

  // query [B, Q, E] (no positional encoding); tokens [B, N_cam, S, E]; camera reference points
  // and visibility from `project_reference_points` -> [B, Q, E]
  at::Tensor forward(const at::Tensor& query, const at::Tensor& tokens,
                     const CameraReferencePoints& camera_points,
                     const SpatialShapes& spatial_shapes);

  void reset_parameters();  // the original's init_weight (output_proj only)
  void set_dropout(double p) { dropout_->options.p(p); }
  MsDeformableAttention3d& deformable_attention() { return deformable_attention_; }

 private:
  // The deformable attention of each camera over the queries `selected` [N_cam, Q] for it,
  // summed over cameras -> [B, Q, E]; a query no camera selects gets 0.
  at::Tensor summed_over_cameras(const at::Tensor& query, const at::Tensor& tokens,
                                 const at::Tensor& points, const at::Tensor& selected,
                                 const SpatialShapes& spatial_shapes);

  SpatialCrossAttentionOptions options_;
  torch::nn::Dropout dropout_{nullptr};
  MsDeformableAttention3d deformable_attention_{nullptr};
  torch::nn::Linear output_proj_{nullptr};
};
TORCH_MODULE(SpatialCrossAttention);

}  // namespace olv2
