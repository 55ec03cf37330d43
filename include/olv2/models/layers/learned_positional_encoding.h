#pragma once
// mmdet's `LearnedPositionalEncoding` of a grid, with its config.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"

namespace olv2 {

struct LearnedPositionalEncodingOptions {
  int64_t num_feats = 128;  // channels per axis; the output has 2 * num_feats channels
  int64_t row_num_embed = 100;
  int64_t col_num_embed = 200;

  // mmdet `type: LearnedPositionalEncoding` (every key required).
  static Schema schema();
  static LearnedPositionalEncodingOptions from_config(const ConfigNode& section);
};

// mmdet `LearnedPositionalEncoding`: one learned embedding per column (`col_embed`) and per row
// (`row_embed`). The encoding of cell (r, c) is concat(col_embed[c], row_embed[r]): the column
// embedding comes first. The mask only gives the batch size and the grid size.
class LearnedPositionalEncodingImpl : public torch::nn::Module {
 public:
  explicit LearnedPositionalEncodingImpl(const LearnedPositionalEncodingOptions& options);

  // mask [B, h, w] -> [B, 2 * num_feats, h, w]
  at::Tensor forward(const at::Tensor& mask);

  void reset_parameters();  // mmdet's init: both embeddings ~ U(0, 1)

 private:
  LearnedPositionalEncodingOptions options_;
  torch::nn::Embedding row_embed_{nullptr};
  torch::nn::Embedding col_embed_{nullptr};
};
TORCH_MODULE(LearnedPositionalEncoding);

}  // namespace olv2
