#include "olv2/models/necks/fpn.h"

#include <torch/torch.h>

#include <algorithm>

#include "olv2/models/necks/conv_module.h"
#include "olv2/models/necks/fpn_parts.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema FpnOptions::schema() { return fpn_schema("FPN"); }

FpnOptions FpnOptions::from_config(const ConfigNode& section) {
  FpnOptions o;
  read_fpn_keys(section, o);
  return o;
}

std::shared_ptr<NeckImpl> FpnOptions::build() const { return std::make_shared<FpnImpl>(*this); }

FpnImpl::FpnImpl(const FpnOptions& options) : options_(options) {
  const auto num_ins = static_cast<int64_t>(options.in_channels.size());
  backbone_end_level_ = options.end_level == -1 ? num_ins : options.end_level + 1;
  if (backbone_end_level_ > num_ins || options.start_level < 0 ||
      options.start_level >= backbone_end_level_) {
    throw input_error("FPN: start_level/end_level do not fit " + std::to_string(num_ins) +
                      " input levels");
  }
  const std::vector<std::string> sources{"", "on_input", "on_lateral", "on_output"};
  if (std::find(sources.begin(), sources.end(), options.add_extra_convs) == sources.end()) {
    throw input_error("FPN: add_extra_convs must be false, on_input, on_lateral or on_output");
  }
  const int64_t levels = backbone_end_level_ - options.start_level;
  if (options.num_outs < levels) {
    throw input_error("FPN: num_outs " + std::to_string(options.num_outs) + " is below the " +
                      std::to_string(levels) + " input levels used");
  }
  const int64_t out = options.out_channels;
  for (int64_t level = options.start_level; level < backbone_end_level_; ++level) {
    lateral_convs_->push_back(
        ConvModule(torch::nn::Conv2dOptions(options.in_channels[level], out, 1)));
    fpn_convs_->push_back(ConvModule(torch::nn::Conv2dOptions(out, out, 3).padding(1)));
  }
  append_extra_convs(fpn_convs_, options.num_outs - levels, options.add_extra_convs,
                     options.in_channels[backbone_end_level_ - 1], out);
  register_module("lateral_convs", lateral_convs_);
  register_module("fpn_convs", fpn_convs_);

  xavier_init_convs(*this);
}

std::vector<at::Tensor> FpnImpl::forward(const std::vector<at::Tensor>& inputs) {
  const std::vector<at::Tensor> laterals = top_down_laterals(
      "FPN", inputs, options_.in_channels.size(), lateral_convs_, options_.start_level);
  std::vector<at::Tensor> outs;
  for (size_t i = 0; i < laterals.size(); ++i)
    outs.push_back(fpn_convs_[i]->as<ConvModule>()->forward(laterals[i]));

  const auto num_outs = static_cast<size_t>(options_.num_outs);
  if (options_.add_extra_convs.empty()) {
    while (outs.size() < num_outs) {
      outs.push_back(torch::max_pool2d(outs.back(), /*kernel_size=*/1, /*stride=*/2));
    }
    return outs;
  }
  const size_t levels = laterals.size();
  if (outs.size() < num_outs) {
    const at::Tensor source = options_.add_extra_convs == "on_input"
                                  ? inputs[static_cast<size_t>(backbone_end_level_ - 1)]
                              : options_.add_extra_convs == "on_lateral" ? laterals.back()
                                                                         : outs.back();
    outs.push_back(fpn_convs_[levels]->as<ConvModule>()->forward(source));
  }
  for (size_t i = levels + 1; i < num_outs; ++i) {
    const at::Tensor source =
        options_.relu_before_extra_convs ? torch::relu(outs.back()) : outs.back();
    outs.push_back(fpn_convs_[i]->as<ConvModule>()->forward(source));
  }
  return outs;
}

}  // namespace olv2
