#pragma once
// BEVFormer's temporal self-attention over the BEV queries, without a previous BEV as OpenLane-V2
// runs it.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <string>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/models/attention_registry.h"
#include "olv2/models/ops/ms_deform_attn.h"

namespace olv2 {

// Which project's copy of BEVFormer's temporal self-attention runs. Both configs name it
// `TemporalSelfAttention`; the attention registry has TopoNet's as `toponet.TemporalSelfAttention`,
// which is what the name means in TopoNet's scope (Registry::read).
enum class TemporalSelfAttentionCode {
  // OpenLane-V2's plug-in: the value projected twice; each sample's offsets from its own query.
  kOpenLaneV2,
  // TopoNet: the value projected once; the offsets of sample b from row b of the interleaved
  // value copies, i.e. from the query of sample b / 2 (the same for a batch of one).
  kTopoNet,
};

struct TemporalSelfAttentionOptions : AttentionOptions {
  int64_t embed_dims = 256;
  int64_t num_heads = 8;
  int64_t num_levels = 1;
  int64_t num_points = 4;
  int64_t num_bev_queue = 2;  // previous and current BEV; the original asserts 2
  double dropout = 0.1;       // on the output, before the residual sum
  TemporalSelfAttentionCode code = TemporalSelfAttentionCode::kOpenLaneV2;

  // BEVFormer's `type: TemporalSelfAttention` as an `attn_cfgs` entry (`type` as registered).
  static Schema schema(const std::string& type = "TemporalSelfAttention");
  static TemporalSelfAttentionOptions from_config(
      const ConfigNode& section,
      TemporalSelfAttentionCode code = TemporalSelfAttentionCode::kOpenLaneV2);
};

// BEVFormer's temporal self-attention as OpenLane-V2 runs it: without a previous BEV (the only
// path the original takes, spec §2.2), the value is two copies of the BEV queries, each copy
// gets its own offsets and weights from concat(query, query + query_pos), and the two sampled
// results are averaged (with TopoNet's differences, see TemporalSelfAttentionCode). Batch-first;
// returns query + Dropout(output_proj(averaged)). Parameters `sampling_offsets`,
// `attention_weights`, `value_proj`, `output_proj`.
class TemporalSelfAttentionImpl : public torch::nn::Module {
 public:
  explicit TemporalSelfAttentionImpl(const TemporalSelfAttentionOptions& options);

  // query, query_pos [B, Q, E]; reference_points [B * num_bev_queue, Q, num_levels, 2] with
  // the copies of a sample adjacent (index b * num_bev_queue + t); spatial_shapes: the BEV grid.
  at::Tensor forward(const at::Tensor& query, const at::Tensor& query_pos,
                     const at::Tensor& reference_points, const SpatialShapes& spatial_shapes);

  void reset_parameters();  // the original's init_weights
  void set_dropout(double p) { dropout_->options.p(p); }

 private:
  TemporalSelfAttentionOptions options_;
  torch::nn::Dropout dropout_{nullptr};
  torch::nn::Linear sampling_offsets_{nullptr};
  torch::nn::Linear attention_weights_{nullptr};
  torch::nn::Linear value_proj_{nullptr};
  torch::nn::Linear output_proj_{nullptr};
};
TORCH_MODULE(TemporalSelfAttention);

}  // namespace olv2
