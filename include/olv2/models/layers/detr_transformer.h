#pragma once
// mmdet's DETR `Transformer`: its encoder and decoder stacks of transformer layers.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <utility>

#include "olv2/models/layers/transformer_layer.h"

namespace olv2 {

struct DetrTransformerOptions {
  TransformerLayerOptions encoder_layer;  // operation order self_attn, norm, ffn, norm
  TransformerLayerOptions decoder_layer = [] {
    TransformerLayerOptions layer;
    layer.attentions = {AttentionKind::kMultihead, AttentionKind::kMultihead};
    layer.operation_order = {"self_attn", "norm", "cross_attn", "norm", "ffn", "norm"};
    return layer;
  }();
  int64_t num_encoder_layers = 1;
  int64_t num_decoder_layers = 1;
};

// mmdet `DetrTransformerEncoder`: a stack of layers (`layers.i`); post-norm
// layers get no final norm. Sequence-first [S, B, E].
class DetrTransformerEncoderImpl : public torch::nn::Module {
 public:
  DetrTransformerEncoderImpl(const TransformerLayerOptions& layer, int64_t num_layers);
  at::Tensor forward(at::Tensor query, const at::Tensor& query_pos,
                     const at::Tensor& key_padding_mask);

 private:
  torch::nn::ModuleList layers_{nullptr};
  torch::nn::LayerNorm post_norm_{nullptr};  // only for pre-norm layers
};
TORCH_MODULE(DetrTransformerEncoder);

// mmdet `DetrTransformerDecoder` with `return_intermediate=True`: every layer's
// output passes through the shared `post_norm` and the results are stacked:
// [num_layers, Q, B, E].
class DetrTransformerDecoderImpl : public torch::nn::Module {
 public:
  DetrTransformerDecoderImpl(const TransformerLayerOptions& layer, int64_t num_layers);
  at::Tensor forward(at::Tensor query, const at::Tensor& memory, const at::Tensor& query_pos,
                     const at::Tensor& key_pos, const at::Tensor& key_padding_mask);

 private:
  torch::nn::ModuleList layers_{nullptr};
  torch::nn::LayerNorm post_norm_{nullptr};
};
TORCH_MODULE(DetrTransformerDecoder);

// mmdet `Transformer` (DETR): encoder over the flattened feature map, decoder
// from zero targets with the query embedding as positional term.
class DetrTransformerImpl : public torch::nn::Module {
 public:
  explicit DetrTransformerImpl(const DetrTransformerOptions& options);
  // x [B, E, H, W], mask [B, H, W] (true = padded), query_embed [Q, E], pos [B,
  // E, H, W]. Returns (decoder outputs [num_layers, B, Q, E], encoder memory
  // [B, E, H, W]).
  std::pair<at::Tensor, at::Tensor> forward(const at::Tensor& x, const at::Tensor& mask,
                                            const at::Tensor& query_embed, const at::Tensor& pos);
  void set_dropout(double p);
  void reset_parameters();  // mmdet `Transformer.init_weights`

 private:
  DetrTransformerEncoder encoder_{nullptr};
  DetrTransformerDecoder decoder_{nullptr};
};
TORCH_MODULE(DetrTransformer);

}  // namespace olv2
