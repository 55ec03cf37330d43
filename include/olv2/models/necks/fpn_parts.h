#pragma once
// What mmdet's FPN and OpenLane-V2's CustomFPN share: config keys, top-down path, extra levels.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>

#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"

namespace olv2 {

// Pieces shared by mmdet's FPN and OpenLane-V2's CustomFPN.

// `type: <type>` with the keys both necks have: in_channels, out_channels, num_outs (required),
// start_level, end_level, add_extra_convs, relu_before_extra_convs.
Schema fpn_schema(const std::string& type);

// mmdet's `add_extra_convs` of a neck section: "" (none), or the source; `true` = "on_input".
std::string add_extra_convs_from_config(const ConfigNode& section, const std::string& fallback);

// Reads the keys of fpn_schema() into options with the same field names.
template <typename Options>
void read_fpn_keys(const ConfigNode& section, Options& o) {
  o.in_channels = section.at("in_channels").as_vector<int64_t>();
  o.out_channels = section.at("out_channels").as_int();
  o.num_outs = section.at("num_outs").as_int();
  o.start_level = section.get<int64_t>("start_level", o.start_level);
  o.end_level = section.get<int64_t>("end_level", o.end_level);
  o.add_extra_convs = add_extra_convs_from_config(section, o.add_extra_convs);
  o.relu_before_extra_convs =
      section.get<bool>("relu_before_extra_convs", o.relu_before_extra_convs);
}

// The laterals after the top-down path: lateral conv i (mmcv ConvModules) on input
// start_level + i, then from the coarsest level down each lateral gains the nearest-neighbour
// upsampling of the one above it to its own size. `neck` names the module in the error for a
// wrong number of inputs.
std::vector<at::Tensor> top_down_laterals(const std::string& neck,
                                          const std::vector<at::Tensor>& inputs,
                                          size_t expected_inputs,
                                          torch::nn::ModuleList& lateral_convs,
                                          int64_t start_level);

// Appends `count` stride-2 3x3 extra-level convs (mmcv ConvModules) to `fpn_convs`; the first
// reads `last_input_channels` when `add_extra_convs` is "on_input", every other one
// `out_channels`. None when `add_extra_convs` is empty.
void append_extra_convs(torch::nn::ModuleList& fpn_convs, int64_t count,
                        const std::string& add_extra_convs, int64_t last_input_channels,
                        int64_t out_channels);

// mmdet's FPN init: every conv Xavier-uniform with zero bias.
void xavier_init_convs(torch::nn::Module& module);

}  // namespace olv2
