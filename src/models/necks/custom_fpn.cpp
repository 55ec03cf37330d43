#include "olv2/models/necks/custom_fpn.h"

#include <torch/torch.h>

#include <algorithm>

#include "olv2/config/section_readers.h"
#include "olv2/models/necks/conv_module.h"
#include "olv2/models/necks/fpn_parts.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema CustomFpnOptions::schema() {
  Schema schema = fpn_schema("CustomFPN");
  schema.optional("out_ids", integers_schema());
  return schema;
}

CustomFpnOptions CustomFpnOptions::from_config(const ConfigNode& section) {
  CustomFpnOptions o;
  read_fpn_keys(section, o);
  // The original's default out_ids is an empty list, which fails at forward time.
  if (const ConfigNode* v = section.find("out_ids")) o.out_ids = v->as_vector<int64_t>();
  return o;
}

std::shared_ptr<NeckImpl> CustomFpnOptions::build() const {
  return std::make_shared<CustomFpnImpl>(*this);
}

CustomFpnImpl::CustomFpnImpl(const CustomFpnOptions& options) : options_(options) {
  const auto num_ins = static_cast<int64_t>(options.in_channels.size());
  backbone_end_level_ = options.end_level == -1 ? num_ins : options.end_level;
  if (backbone_end_level_ > num_ins || options.start_level < 0 ||
      options.start_level >= backbone_end_level_) {
    throw input_error("CustomFPN: start_level/end_level do not fit " + std::to_string(num_ins) +
                      " input levels");
  }
  if (options.out_ids.empty()) throw input_error("CustomFPN: out_ids must not be empty");
  for (int64_t id : options.out_ids) {
    if (id < options.start_level || id >= backbone_end_level_) {
      throw input_error("CustomFPN: out_ids entry " + std::to_string(id) + " is not a built level");
    }
  }
  const std::vector<std::string> sources{"", "on_input", "on_lateral", "on_output"};
  if (std::find(sources.begin(), sources.end(), options.add_extra_convs) == sources.end()) {
    throw input_error(
        "CustomFPN: add_extra_convs must be false, on_input, "
        "on_lateral or on_output");
  }

  const int64_t out = options.out_channels;
  for (int64_t level = options.start_level; level < backbone_end_level_; ++level) {
    lateral_convs_->push_back(
        ConvModule(torch::nn::Conv2dOptions(options.in_channels[level], out, 1)));
    const auto& ids = options.out_ids;
    if (std::find(ids.begin(), ids.end(), level) != ids.end()) {
      fpn_convs_->push_back(ConvModule(torch::nn::Conv2dOptions(out, out, 3).padding(1)));
    }
  }
  // Extra levels only exist for their parameters: the original computes them
  // and then returns outs[0] alone, so they never reach the output.
  const int64_t extra_levels = options.num_outs - backbone_end_level_ + options.start_level;
  append_extra_convs(fpn_convs_, extra_levels, options.add_extra_convs,
                     options.in_channels[backbone_end_level_ - 1], out);
  register_module("lateral_convs", lateral_convs_);
  register_module("fpn_convs", fpn_convs_);

  xavier_init_convs(*this);
}

std::vector<at::Tensor> CustomFpnImpl::forward(const std::vector<at::Tensor>& inputs) {
  const std::vector<at::Tensor> laterals = top_down_laterals(
      "CustomFPN", inputs, options_.in_channels.size(), lateral_convs_, options_.start_level);
  // As the original: output convs and laterals are both indexed by the level id
  // itself.
  const auto id = static_cast<size_t>(options_.out_ids.front());
  if (id >= fpn_convs_->size() || id >= laterals.size()) {
    throw input_error("CustomFPN: out_ids[0] = " + std::to_string(id) +
                      " has no output conv (the original indexes fpn_convs by level id)");
  }
  return {fpn_convs_[id]->as<ConvModule>()->forward(laterals[id])};
}

}  // namespace olv2
