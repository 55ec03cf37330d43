#pragma once
// mmcv's `BaseTransformerLayer`: attentions, norms and FFNs run in a configured order, the layer of
// every transformer here.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include <optional>
#include <string>
#include <vector>

#include "olv2/models/layers/ffn.h"
#include "olv2/models/layers/multi_scale_deformable_attention.h"
#include "olv2/models/layers/multihead_attention.h"
#include "olv2/models/layers/scene_graph_ffn.h"
#include "olv2/models/ops/ms_deform_attn.h"

namespace olv2 {

// What an attention of a layer is (mmcv's `attn_cfgs` types): PyTorch multi-head attention
// (mmcv MultiheadAttention) or multi-scale deformable attention.
enum class AttentionKind { kMultihead, kDeformable };

struct TransformerLayerOptions {
  // One entry per self_attn / cross_attn of operation_order, in order.
  std::vector<AttentionKind> attentions = {AttentionKind::kMultihead};
  MultiheadAttentionOptions multihead;              // every multi-head attention of the layer
  MultiScaleDeformableAttentionOptions deformable;  // every deformable attention of the layer
  FfnOptions ffn;
  // When set, the layer's FFNs are TopoNet's FFN_SGNN instead (`ffn` unused).
  std::optional<SceneGraphFfnOptions> scene_graph_ffn;
  // Any sequence of "self_attn", "cross_attn", "norm", "ffn"; a leading "norm" means pre-norm.
  std::vector<std::string> operation_order = {"self_attn", "norm", "ffn", "norm"};
  double norm_eps = 1e-5;
};

// What a layer reads besides the query; what its attentions do not use may stay undefined.
struct TransformerLayerInputs {
  at::Tensor key;    // multi-head cross-attention
  at::Tensor value;  // cross-attention
  at::Tensor query_pos;
  at::Tensor key_pos;                             // multi-head cross-attention
  at::Tensor query_key_padding_mask;              // self-attention
  at::Tensor key_padding_mask;                    // cross-attention
  at::Tensor reference_points;                    // deformable attention
  const SpatialShapes* spatial_shapes = nullptr;  // deformable attention
  const SceneGraphInputs* scene_graph = nullptr;  // FFN_SGNN
};

// mmcv `BaseTransformerLayer`, which DETR's encoder and decoder layers, mmdet's Deformable-DETR
// encoder layer, OpenLane-V2's `CustomDetrTransformerDecoderLayer` and TopoNet's
// `SGNNDecoderLayer` (whose FFN is an FFN_SGNN) all are: runs
// `operation_order` over sequence-first tensors (query [Q, B, E], key and value [S, B, E]).
// Submodules `attentions.i`, `ffns.i`, `norms.i` in the order they appear; the norms are as wide
// as the first attention. A self-attention attends to the query with `query_pos` and
// `query_key_padding_mask` (a deformable one samples the query itself); a cross-attention
// attends to key/value with `key_pos` and `key_padding_mask` (a deformable one samples value).
// In pre-norm layers each attention's and FFN's residual is the input of the preceding norm.
class TransformerLayerImpl : public torch::nn::Module {
 public:
  explicit TransformerLayerImpl(const TransformerLayerOptions& options);
  at::Tensor forward(at::Tensor query, const TransformerLayerInputs& inputs);
  void set_dropout(double p);
  bool pre_norm() const { return pre_norm_; }

 private:
  TransformerLayerOptions options_;
  bool pre_norm_;
  torch::nn::ModuleList attentions_{nullptr};
  torch::nn::ModuleList ffns_{nullptr};
  torch::nn::ModuleList norms_{nullptr};
};
TORCH_MODULE(TransformerLayer);

// The decoder layer of the heads on the BEV: self-attention, norm, a deformable cross-attention
// on the sequence-first BEV (one level), norm, FFN, norm; the FFN is the caller's to set.
TransformerLayerOptions bev_decoder_layer(
    const MultiheadAttentionOptions& self_attention,
    const MultiScaleDeformableAttentionOptions& cross_attention);
// An input error naming `transformer` unless the layer's attentions and FFN are `embed_dims`
// wide and its deformable attention samples one level (the BEV).
void require_bev_decoder_layer(const std::string& transformer, int64_t embed_dims,
                               const TransformerLayerOptions& layer);

// A layer sequence's `layers`: `num_layers` layers of `layer`.
torch::nn::ModuleList transformer_layers(const TransformerLayerOptions& layer, int64_t num_layers);

}  // namespace olv2
