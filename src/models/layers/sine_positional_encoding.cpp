#include "olv2/models/layers/sine_positional_encoding.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"

namespace olv2 {

Schema SinePositionalEncodingOptions::schema() {
  Schema schema = typed_schema("SinePositionalEncoding");
  schema.required("num_feats", Schema::integer())
      .optional("temperature", Schema::number())
      .optional("normalize", Schema::boolean())
      .optional("scale", Schema::number())
      .optional("eps", Schema::number())
      .optional("offset", Schema::number());
  return schema;
}

SinePositionalEncodingOptions SinePositionalEncodingOptions::from_config(
    const ConfigNode& section) {
  SinePositionalEncodingOptions o;
  o.num_feats = section.at("num_feats").as_int();
  o.temperature = section.get<double>("temperature", o.temperature);
  o.normalize = section.get<bool>("normalize", o.normalize);
  o.scale = section.get<double>("scale", o.scale);
  o.eps = section.get<double>("eps", o.eps);
  o.offset = section.get<double>("offset", o.offset);
  return o;
}

at::Tensor sine_positional_encoding(const at::Tensor& mask,
                                    const SinePositionalEncodingOptions& options) {
  const at::Tensor not_mask = 1 - mask.to(torch::kInt);
  at::Tensor y_embed = not_mask.cumsum(1, torch::kFloat);
  at::Tensor x_embed = not_mask.cumsum(2, torch::kFloat);
  if (options.normalize) {
    const int64_t height = mask.size(1);
    const int64_t width = mask.size(2);
    y_embed = (y_embed + options.offset) / (y_embed.narrow(1, height - 1, 1) + options.eps) *
              options.scale;
    x_embed = (x_embed + options.offset) / (x_embed.narrow(2, width - 1, 1) + options.eps) *
              options.scale;
  }
  const auto float_options = torch::TensorOptions().dtype(torch::kFloat).device(mask.device());
  const at::Tensor dim_t =
      torch::pow(options.temperature,
                 2 * torch::div(torch::arange(options.num_feats, float_options), 2, "floor") /
                     options.num_feats);
  const auto encode = [&](const at::Tensor& embed) {
    const at::Tensor pos = embed.unsqueeze(-1) / dim_t;  // [B, H, W, num_feats]
    const auto sizes = mask.sizes();
    return torch::stack(
               {pos.slice(3, 0, c10::nullopt, 2).sin(), pos.slice(3, 1, c10::nullopt, 2).cos()}, 4)
        .view({sizes[0], sizes[1], sizes[2], -1});
  };
  return torch::cat({encode(y_embed), encode(x_embed)}, 3).permute({0, 3, 1, 2});
}

}  // namespace olv2
