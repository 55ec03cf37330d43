#pragma once
// Parameters grouped by learning rate and weight decay, as mmcv's `paramwise_cfg.custom_keys`
// assigns them.
#include <ATen/core/Tensor.h>
#include <torch/ordered_dict.h>

#include <optional>
#include <string>
#include <vector>

namespace olv2 {

// One entry of mmcv's `paramwise_cfg.custom_keys`: parameters whose name
// contains `key` get lr × lr_mult and weight_decay × decay_mult.
struct CustomKeyRule {
  std::string key;
  double lr_mult = 1.0;
  double decay_mult = 1.0;
};

// The rules of mmcv's DefaultOptimizerConstructor that this project supports.
struct ParamGroupRules {
  double base_lr = 1e-4;
  double base_weight_decay = 0.0;
  std::vector<CustomKeyRule> custom_keys;
};

// Parameters that share one (lr, weight_decay) setting. `custom_key` is the
// rule that matched
// ("" when none did); `names` and `params` are in model order.
struct ParamGroup {
  std::string custom_key;
  double lr_mult = 1.0;
  double decay_mult = 1.0;
  double lr = 0.0;            // base_lr × lr_mult: the group's initial (schedule-free) lr
  double weight_decay = 0.0;  // base_weight_decay × decay_mult
  std::vector<std::string> names;
  std::vector<at::Tensor> params;
};

// The custom keys in mmcv's matching order: longest first, ties in alphabetical
// order.
std::vector<CustomKeyRule> sorted_custom_keys(std::vector<CustomKeyRule> rules);

// The rule that applies to the parameter `name` (a full dotted name), or
// nullopt. `sorted_rules` must come from sorted_custom_keys().
std::optional<CustomKeyRule> match_custom_key(const std::string& name,
                                              const std::vector<CustomKeyRule>& sorted_rules);

// Groups the trainable parameters as mmcv's DefaultOptimizerConstructor assigns
// their lr and weight decay; parameters with requires_grad false are left out, and a tensor
// listed under several names (a module shared by several owners) appears once, under its
// first name, as PyTorch's named_parameters() lists it.
// mmcv makes one group per parameter once `paramwise_cfg` is given; here
// parameters with the same matched rule share a group (first appearance order),
// which gives every parameter the same lr and decay.
std::vector<ParamGroup> build_param_groups(
    const torch::OrderedDict<std::string, at::Tensor>& named_parameters,
    const ParamGroupRules& rules);

}  // namespace olv2
