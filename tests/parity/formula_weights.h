#pragma once
// The fixture weights of the reduced TopoNet and LaneSegNet models: the baseline_large fixture's
// backbone, neck and BEV constructor, the README's `formula v1` for every other entry
// (tests/data/toponet/README.md, "Weights").
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <regex>
#include <string>
#include <vector>

#include "olv2/util/state_dict.h"

namespace olv2::test {

// `formula v1`: a function of the entry's name and shape only; the entries whose whole name
// matches `layer_norm_weights` are LayerNorm weights, around 1.
inline at::Tensor formula_tensor(const std::string& name, at::IntArrayRef shape,
                                 const std::regex& layer_norm_weights) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char byte : name) h = (h ^ byte) * 0x100000001b3ULL;
  const int64_t b = static_cast<int64_t>(h % 2147483648ULL);
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  const at::Tensor k = torch::arange(n, torch::kLong);
  const at::Tensor u = ((k * 1103515245 + b) % 2147483648).to(torch::kDouble) / 2147483648.0;
  at::Tensor values;
  if (std::regex_match(name, layer_norm_weights)) {
    values = (2.0 * u - 1.0) * 0.1 + 1.0;
  } else {
    const double scale =
        shape.size() >= 2 ? 1.0 / std::sqrt(static_cast<double>(shape.back())) : 0.1;
    values = (2.0 * u - 1.0) * scale;
  }
  return values.to(torch::kFloat).reshape(shape);
}

// Loads the fixture weights into `model`: `shared` (the baseline_large fixture's state dict)
// for its backbone, neck and BEV constructor, the formula for the rest but
// `pts_bbox_head.code_weights`, which keeps its constant.
inline void load_fixture_weights(torch::nn::Module& model, const NamedTensors& shared,
                                 const std::regex& layer_norm_weights) {
  const auto is_shared = [](const std::string& name) {
    const std::string part = name.substr(0, name.find('.'));
    return part == "img_backbone" || part == "img_neck" || part == "bev_constructor";
  };
  NamedTensors state;
  for (const auto& [name, tensor] : module_state_dict(model)) {
    if (is_shared(name) || name == "pts_bbox_head.code_weights") continue;
    state.emplace_back(name, formula_tensor(name, tensor.sizes(), layer_norm_weights));
  }
  for (const auto& [name, tensor] : shared) {
    if (is_shared(name)) state.emplace_back(name, tensor);
  }
  LoadStateDictOptions options;
  options.strict = false;
  const LoadStateDictReport report = load_state_dict(model, state, options);
  EXPECT_EQ(report.missing_keys, std::vector<std::string>{"pts_bbox_head.code_weights"});
  EXPECT_TRUE(report.unexpected_keys.empty());
}

}  // namespace olv2::test
