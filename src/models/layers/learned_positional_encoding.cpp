#include "olv2/models/layers/learned_positional_encoding.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema LearnedPositionalEncodingOptions::schema() {
  Schema schema = typed_schema("LearnedPositionalEncoding");
  schema.required("num_feats", Schema::integer())
      .required("row_num_embed", Schema::integer())
      .required("col_num_embed", Schema::integer());
  return schema;
}

LearnedPositionalEncodingOptions LearnedPositionalEncodingOptions::from_config(
    const ConfigNode& section) {
  LearnedPositionalEncodingOptions o;
  o.num_feats = section.at("num_feats").as_int();
  o.row_num_embed = section.at("row_num_embed").as_int();
  o.col_num_embed = section.at("col_num_embed").as_int();
  return o;
}

LearnedPositionalEncodingImpl::LearnedPositionalEncodingImpl(
    const LearnedPositionalEncodingOptions& options)
    : options_(options) {
  row_embed_ =
      register_module("row_embed", torch::nn::Embedding(options.row_num_embed, options.num_feats));
  col_embed_ =
      register_module("col_embed", torch::nn::Embedding(options.col_num_embed, options.num_feats));
  reset_parameters();
}

void LearnedPositionalEncodingImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  row_embed_->weight.uniform_(0.0, 1.0);
  col_embed_->weight.uniform_(0.0, 1.0);
}

at::Tensor LearnedPositionalEncodingImpl::forward(const at::Tensor& mask) {
  const int64_t batch = mask.size(0), height = mask.size(-2), width = mask.size(-1);
  if (height > options_.row_num_embed || width > options_.col_num_embed) {
    throw runtime_error("LearnedPositionalEncoding: a " + std::to_string(height) + " x " +
                        std::to_string(width) + " grid needs more than the " +
                        std::to_string(options_.row_num_embed) + " x " +
                        std::to_string(options_.col_num_embed) + " embeddings");
  }
  const auto index_options = torch::TensorOptions().dtype(torch::kLong).device(mask.device());
  const at::Tensor x_embed = col_embed_->forward(torch::arange(width, index_options));
  const at::Tensor y_embed = row_embed_->forward(torch::arange(height, index_options));
  const at::Tensor pos = torch::cat({x_embed.unsqueeze(0).expand({height, width, -1}),
                                     y_embed.unsqueeze(1).expand({height, width, -1})},
                                    -1);  // [h, w, 2 * num_feats]
  return pos.permute({2, 0, 1}).unsqueeze(0).expand({batch, -1, -1, -1});
}

}  // namespace olv2
