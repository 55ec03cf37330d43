#include "olv2/models/layers/ffn.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema FfnOptions::schema() {
  Schema act = typed_schema("ReLU");
  act.optional("inplace", Schema::boolean());
  Schema schema = typed_schema("FFN");
  schema.optional("embed_dims", Schema::integer())
      .optional("feedforward_channels", Schema::integer())
      .optional("num_fcs", Schema::integer().range(2, 16))
      .optional("ffn_drop", ratio_schema())
      .optional("act_cfg", act)
      .optional("add_identity", Schema::boolean());
  return Schema::either(schema, Schema::sequence(schema));
}

FfnOptions FfnOptions::from_layer_config(const ConfigNode& layer, FfnOptions o) {
  if (const ConfigNode* cfgs = layer.find("ffn_cfgs"); cfgs != nullptr && !cfgs->is_null()) {
    const std::vector<const ConfigNode*> ffns = maps_of(*cfgs);
    if (ffns.size() != 1) throw input_error(cfgs->where() + ": expected one FFN config");
    const ConfigNode& ffn = *ffns[0];
    o.embed_dims = ffn.get<int64_t>("embed_dims", o.embed_dims);
    o.feedforward_channels = ffn.get<int64_t>("feedforward_channels", o.feedforward_channels);
    o.num_fcs = ffn.get<int64_t>("num_fcs", o.num_fcs);
    o.ffn_drop = ffn.get<double>("ffn_drop", o.ffn_drop);
    o.add_identity = ffn.get<bool>("add_identity", o.add_identity);
  }
  o.feedforward_channels = layer.get<int64_t>("feedforward_channels", o.feedforward_channels);
  o.ffn_drop = layer.get<double>("ffn_dropout", o.ffn_drop);
  return o;
}

FfnImpl::FfnImpl(const FfnOptions& options) : options_(options) {
  if (options.num_fcs < 2) {
    throw input_error("FFN: num_fcs must be at least 2, got " + std::to_string(options.num_fcs));
  }
  torch::nn::ModuleList layers;
  int64_t in_channels = options.embed_dims;
  for (int64_t i = 0; i + 1 < options.num_fcs; ++i) {
    layers->push_back(
        torch::nn::Sequential(torch::nn::Linear(in_channels, options.feedforward_channels),
                              torch::nn::ReLU(), torch::nn::Dropout(options.ffn_drop)));
    in_channels = options.feedforward_channels;
  }
  layers->push_back(torch::nn::Linear(options.feedforward_channels, options.embed_dims));
  layers->push_back(torch::nn::Dropout(options.ffn_drop));
  layers_ = register_module("layers", layers);
}

void FfnImpl::set_dropout(double p) {
  options_.ffn_drop = p;
  for (auto& module : layers_->modules(/*include_self=*/false)) {
    if (auto* dropout = module->as<torch::nn::Dropout>()) dropout->options.p(p);
  }
}

at::Tensor FfnImpl::forward(const at::Tensor& x, const at::Tensor& identity) {
  at::Tensor out = x;
  for (const auto& layer : *layers_) {
    if (auto* block = layer->as<torch::nn::Sequential>()) {
      out = block->forward(out);
    } else if (auto* linear = layer->as<torch::nn::Linear>()) {
      out = linear->forward(out);
    } else {
      out = layer->as<torch::nn::Dropout>()->forward(out);
    }
  }
  if (!options_.add_identity) return out;
  return (identity.defined() ? identity : x) + out;
}

}  // namespace olv2
