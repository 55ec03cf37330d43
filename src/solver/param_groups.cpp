#include "olv2/solver/param_groups.h"

#include <algorithm>
#include <map>
#include <set>

namespace olv2 {

std::vector<CustomKeyRule> sorted_custom_keys(std::vector<CustomKeyRule> rules) {
  std::sort(rules.begin(), rules.end(),
            [](const CustomKeyRule& a, const CustomKeyRule& b) { return a.key < b.key; });
  std::stable_sort(rules.begin(), rules.end(), [](const CustomKeyRule& a, const CustomKeyRule& b) {
    return a.key.size() > b.key.size();
  });
  return rules;
}

std::optional<CustomKeyRule> match_custom_key(const std::string& name,
                                              const std::vector<CustomKeyRule>& sorted_rules) {
  // Original behaviour: mmcv matches against f"{prefix}.{name}", so a parameter
  // of the root module is seen as ".weight".
  const std::string matched = name.find('.') == std::string::npos ? "." + name : name;
  for (const CustomKeyRule& rule : sorted_rules) {
    if (matched.find(rule.key) != std::string::npos) return rule;
  }
  return std::nullopt;
}

std::vector<ParamGroup> build_param_groups(
    const torch::OrderedDict<std::string, at::Tensor>& named_parameters,
    const ParamGroupRules& rules) {
  const std::vector<CustomKeyRule> sorted = sorted_custom_keys(rules.custom_keys);
  std::vector<ParamGroup> groups;
  std::map<std::string, size_t> group_of_key;  // matched key ("" = none) -> index in groups
  std::set<const void*> seen;  // a tensor shared by several modules is optimised once
  for (const auto& item : named_parameters) {
    if (!item.value().requires_grad()) continue;
    if (!seen.insert(item.value().unsafeGetTensorImpl()).second) continue;
    const std::optional<CustomKeyRule> rule = match_custom_key(item.key(), sorted);
    const std::string key = rule ? rule->key : std::string();
    auto found = group_of_key.find(key);
    if (found == group_of_key.end()) {
      ParamGroup group;
      group.custom_key = key;
      group.lr_mult = rule ? rule->lr_mult : 1.0;
      group.decay_mult = rule ? rule->decay_mult : 1.0;
      // mmcv multiplies only when a rule matched: base × 1.0 is the base
      // exactly anyway.
      group.lr = rule ? rules.base_lr * rule->lr_mult : rules.base_lr;
      group.weight_decay =
          rule ? rules.base_weight_decay * rule->decay_mult : rules.base_weight_decay;
      found = group_of_key.emplace(key, groups.size()).first;
      groups.push_back(std::move(group));
    }
    groups[found->second].names.push_back(item.key());
    groups[found->second].params.push_back(item.value());
  }
  return groups;
}

}  // namespace olv2
