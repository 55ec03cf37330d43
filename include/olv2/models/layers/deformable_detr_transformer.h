#pragma once
// mmdet's Deformable DETR transformer: its encoder, its refining decoder, and the reference-point
// helpers they share.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <functional>
#include <vector>

#include "olv2/models/layers/transformer_layer.h"
#include "olv2/models/ops/ms_deform_attn.h"

namespace olv2 {

// mmdet's `inverse_sigmoid`: log(x / (1 - x)) of x clamped to [0, 1], both terms floored at eps.
at::Tensor inverse_sigmoid(const at::Tensor& x, double eps = 1e-5);

// Share of each padding mask [B, h, w] (true = padded) that holds image: [B, 2] as
// (valid width / w, valid height / h), counted along row 0 and column 0.
at::Tensor valid_ratios(const at::Tensor& mask);

// The Deformable-DETR encoder's reference points: the centre of every token of every level,
// normalised by the valid part of its own level, then scaled into each level by that level's
// valid ratio. valid_ratios [B, L, 2] -> [B, S, L, 2] (x, y).
at::Tensor encoder_reference_points(const SpatialShapes& spatial_shapes,
                                    const at::Tensor& valid_ratios);

struct DeformableDetrTransformerOptions {
  int64_t embed_dims = 256;
  int64_t num_feature_levels = 4;
  int64_t num_encoder_layers = 6;
  int64_t num_decoder_layers = 6;
  // Deformable self-attention and FFN.
  TransformerLayerOptions encoder_layer = [] {
    TransformerLayerOptions layer;
    layer.attentions = {AttentionKind::kDeformable};
    layer.operation_order = {"self_attn", "norm", "ffn", "norm"};
    return layer;
  }();
  // Multi-head self-attention, deformable cross-attention and FFN.
  TransformerLayerOptions decoder_layer = [] {
    TransformerLayerOptions layer;
    layer.attentions = {AttentionKind::kMultihead, AttentionKind::kDeformable};
    layer.operation_order = {"self_attn", "norm", "cross_attn", "norm", "ffn", "norm"};
    return layer;
  }();
};

// mmdet `DetrTransformerEncoder` of deformable layers (`layers.i`), post-norm so without a
// final norm. Sequence-first: query [S, B, E].
class DeformableDetrEncoderImpl : public torch::nn::Module {
 public:
  DeformableDetrEncoderImpl(const TransformerLayerOptions& layer, int64_t num_layers);
  // key_padding_mask [B, S] (true = padded token), reference_points [B, S, L, 2].
  at::Tensor forward(at::Tensor query, const at::Tensor& query_pos,
                     const at::Tensor& key_padding_mask, const at::Tensor& reference_points,
                     const SpatialShapes& spatial_shapes);

 private:
  torch::nn::ModuleList layers_{nullptr};
};
TORCH_MODULE(DeformableDetrEncoder);

// Regression branch `layer` applied to that decoder layer's output [B, Q, E] -> [B, Q, 4].
using RegressionBranch = std::function<at::Tensor(int64_t layer, const at::Tensor& states)>;

struct DeformableDetrDecoderOutputs {
  at::Tensor inter_states;      // [L, Q, B, E], every layer's output
  at::Tensor inter_references;  // [L, B, Q, 4 (2 without refinement)], detached
};

// mmdet `DeformableDetrTransformerDecoder` with `return_intermediate=True` (`layers.i`). With a
// regression branch every layer refines the reference: the first turns the (cx, cy) point into
// a (cx, cy, w, h) box; the refined reference is detached before the next layer.
class DeformableDetrDecoderImpl : public torch::nn::Module {
 public:
  DeformableDetrDecoderImpl(const TransformerLayerOptions& layer, int64_t num_layers);
  // query, query_pos [Q, B, E]; memory [S, B, E]; key_padding_mask [B, S]; reference_points
  // [B, Q, 2] in [0, 1]; valid_ratios [B, L, 2]; refine empty = no box refinement.
  DeformableDetrDecoderOutputs forward(at::Tensor query, const at::Tensor& memory,
                                       const at::Tensor& query_pos,
                                       const at::Tensor& key_padding_mask,
                                       at::Tensor reference_points, const at::Tensor& valid_ratios,
                                       const SpatialShapes& spatial_shapes,
                                       const RegressionBranch& refine);
  int64_t num_layers() const { return static_cast<int64_t>(layers_->size()); }

 private:
  torch::nn::ModuleList layers_{nullptr};
};
TORCH_MODULE(DeformableDetrDecoder);

struct DeformableDetrTransformerOutputs {
  at::Tensor inter_states;      // [L, Q, B, E]
  at::Tensor init_reference;    // [B, Q, 2] = sigmoid(reference_points(query_pos))
  at::Tensor inter_references;  // [L, B, Q, 4], detached
};

// mmdet `DeformableDetrTransformer` (single stage): flattens the levels with level embeddings
// added to their positional encodings, encodes them with deformable self-attention and decodes
// the learned queries. Parameters `level_embeds`, `encoder.*`, `decoder.*`, `reference_points`.
class DeformableDetrTransformerImpl : public torch::nn::Module {
 public:
  explicit DeformableDetrTransformerImpl(const DeformableDetrTransformerOptions& options);

  // mlvl_feats, mlvl_pos [B, E, h_l, w_l]; mlvl_masks [B, h_l, w_l] (true = padded);
  // query_embed [Q, 2E] = (query_pos, query).
  DeformableDetrTransformerOutputs forward(const std::vector<at::Tensor>& mlvl_feats,
                                           const std::vector<at::Tensor>& mlvl_masks,
                                           const at::Tensor& query_embed,
                                           const std::vector<at::Tensor>& mlvl_pos,
                                           const RegressionBranch& refine);

  void set_dropout(double p);
  // mmdet's init_weights: Xavier-uniform on every parameter of two or more dimensions, each
  // deformable attention's own init, `reference_points` Xavier with zero bias, level
  // embeddings N(0, 1). Other biases and LayerNorms keep PyTorch's construction init.
  void reset_parameters();

 private:
  DeformableDetrTransformerOptions options_;
  at::Tensor level_embeds_;
  DeformableDetrEncoder encoder_{nullptr};
  DeformableDetrDecoder decoder_{nullptr};
  torch::nn::Linear reference_points_{nullptr};
};
TORCH_MODULE(DeformableDetrTransformer);

}  // namespace olv2
