#include "olv2/models/necks/fpn_parts.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/models/necks/conv_module.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema fpn_schema(const std::string& type) {
  Schema schema = typed_schema(type);
  schema.required("in_channels", integers_schema())
      .required("out_channels", Schema::integer())
      .required("num_outs", Schema::integer())
      .optional("start_level", Schema::integer())
      .optional("end_level", Schema::integer())
      .optional("add_extra_convs",
                Schema::either(Schema::boolean(),
                               Schema::string().choices({"on_input", "on_lateral", "on_output"})))
      .optional("relu_before_extra_convs", Schema::boolean());
  return schema;
}

std::string add_extra_convs_from_config(const ConfigNode& section, const std::string& fallback) {
  const ConfigNode* extra = section.find("add_extra_convs");
  if (extra == nullptr) return fallback;
  if (extra->is_null()) return "";
  return extra->is_bool() ? (extra->as_bool() ? "on_input" : "") : extra->as_string();
}

namespace {

// From the coarsest level down, each lateral gains the nearest-neighbour upsampling of the one
// above it to its own size.
void add_top_down(std::vector<at::Tensor>& laterals) {
  for (size_t i = laterals.size() - 1; i > 0; --i) {
    const at::Tensor& finer = laterals[i - 1];
    laterals[i - 1] =
        finer + torch::nn::functional::interpolate(
                    laterals[i], torch::nn::functional::InterpolateFuncOptions()
                                     .size(std::vector<int64_t>{finer.size(2), finer.size(3)})
                                     .mode(torch::kNearest));
  }
}

}  // namespace

std::vector<at::Tensor> top_down_laterals(const std::string& neck,
                                          const std::vector<at::Tensor>& inputs,
                                          size_t expected_inputs,
                                          torch::nn::ModuleList& lateral_convs,
                                          int64_t start_level) {
  if (inputs.size() != expected_inputs) {
    throw runtime_error(neck + ": got " + std::to_string(inputs.size()) + " inputs, expected " +
                        std::to_string(expected_inputs));
  }
  std::vector<at::Tensor> laterals;
  for (size_t i = 0; i < lateral_convs->size(); ++i) {
    laterals.push_back(
        lateral_convs[i]->as<ConvModule>()->forward(inputs[i + static_cast<size_t>(start_level)]));
  }
  add_top_down(laterals);
  return laterals;
}

void append_extra_convs(torch::nn::ModuleList& fpn_convs, int64_t count,
                        const std::string& add_extra_convs, int64_t last_input_channels,
                        int64_t out_channels) {
  if (add_extra_convs.empty()) return;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t in =
        (i == 0 && add_extra_convs == "on_input") ? last_input_channels : out_channels;
    fpn_convs->push_back(
        ConvModule(torch::nn::Conv2dOptions(in, out_channels, 3).stride(2).padding(1)));
  }
}

void xavier_init_convs(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  for (const std::shared_ptr<torch::nn::Module>& child : module.modules(false)) {
    if (auto* conv = dynamic_cast<torch::nn::Conv2dImpl*>(child.get())) {
      torch::nn::init::xavier_uniform_(conv->weight, 1.0);
      conv->bias.zero_();
    }
  }
}

}  // namespace olv2
