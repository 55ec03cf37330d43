#include "olv2/solver/optimizer.h"

#include <algorithm>

#include "olv2/solver/adam.h"
#include "olv2/solver/sgd.h"
#include "olv2/util/error.h"

namespace olv2 {

const at::Tensor* ParamStateEntries::find(const std::string& name) const {
  for (const auto& [key, tensor] : tensors) {
    if (key == name) return &tensor;
  }
  return nullptr;
}

void require_state_names(const ParamStateEntries& entries, const std::vector<std::string>& required,
                         const std::vector<std::string>& optional, const std::string& type,
                         const std::string& what) {
  std::string held;
  bool foreign = false;
  for (const auto& [name, tensor] : entries.tensors) {
    held += (held.empty() ? "`" : ", `") + name + "`";
    foreign = foreign || (std::find(required.begin(), required.end(), name) == required.end() &&
                          std::find(optional.begin(), optional.end(), name) == optional.end());
  }
  bool missing = false;
  for (const std::string& name : required) missing = missing || entries.find(name) == nullptr;
  if (!foreign && !missing) return;
  std::string expected;
  for (const std::string& name : required)
    expected += (expected.empty() ? "`" : ", `") + name + "`";
  for (const std::string& name : optional) {
    expected += (expected.empty() ? "`" : ", `") + name + "` (optional)";
  }
  throw input_error(what + " holds " + (held.empty() ? std::string("no tensors") : held) +
                    "; optimizer type " + type + " keeps " + expected +
                    " (a state written by another optimizer type?)");
}

std::unique_ptr<torch::optim::Optimizer> OptimizerOptions::build(
    const std::vector<ParamGroup>& groups) const {
  if (groups.empty()) {
    throw runtime_error("optimizer " + type + ": the model has no trainable parameters");
  }
  std::vector<torch::optim::OptimizerParamGroup> torch_groups;
  torch_groups.reserve(groups.size());
  for (const ParamGroup& group : groups) {
    torch_groups.emplace_back(group.params, group_options(group.lr, group.weight_decay));
  }
  return build_torch(std::move(torch_groups));
}

Schema OptimizerOptions::common_schema(const std::string& type) {
  const Schema multipliers =
      Schema::map().optional("lr_mult", Schema::number()).optional("decay_mult", Schema::number());
  const Schema paramwise = Schema::map().optional("custom_keys", Schema::map_of(multipliers));
  return Schema::map()
      .required("type", Schema::string().choices({type}))
      .required("lr", Schema::number().range(0.0, 1e3))
      .optional("weight_decay", Schema::number().range(0.0, 1e3))
      .optional("paramwise_cfg", paramwise);
}

void OptimizerOptions::read_common(const ConfigNode& section) {
  type = section.at("type").as_string();
  lr = section.at("lr").as_double();
  weight_decay = section.get<double>("weight_decay", weight_decay);
  custom_keys.clear();
  const ConfigNode* paramwise = section.find("paramwise_cfg");
  if (paramwise == nullptr || paramwise->is_null()) return;
  const ConfigNode* keys = paramwise->find("custom_keys");
  if (keys == nullptr || keys->is_null()) return;
  for (const auto& [key, rule] : keys->entries()) {
    // mmcv needs a base weight decay to multiply.
    if (rule.has("decay_mult") && !section.has("weight_decay")) {
      throw input_error(rule.at("decay_mult").where() +
                        ": decay_mult needs optimizer.weight_decay to be set "
                        "(as mmcv requires)");
    }
    custom_keys.push_back(
        {key, rule.get<double>("lr_mult", 1.0), rule.get<double>("decay_mult", 1.0)});
  }
}

const Registry<OptimizerOptions>& optimizer_registry() {
  using OptimizerRegistry = Registry<OptimizerOptions>;
  const auto adam = [](const std::string& type) {
    return OptimizerRegistry::Entry{
        AdamOptions::schema(type),
        [](const ConfigNode& section,
           const std::string& /*scope*/) -> std::shared_ptr<const OptimizerOptions> {
          return std::make_shared<const AdamOptions>(AdamOptions::from_config(section));
        }};
  };
  const OptimizerRegistry::Entry sgd{
      SgdOptions::schema(),
      [](const ConfigNode& section,
         const std::string& /*scope*/) -> std::shared_ptr<const OptimizerOptions> {
        return std::make_shared<const SgdOptions>(SgdOptions::from_config(section));
      }};
  static const OptimizerRegistry registry(
      "optimizer", {{"Adam", adam("Adam")}, {"AdamW", adam("AdamW")}, {"SGD", sgd}});
  return registry;
}

std::vector<double> group_lrs(const torch::optim::Optimizer& optimizer) {
  std::vector<double> lrs;
  for (const auto& group : optimizer.param_groups()) lrs.push_back(group.options().get_lr());
  return lrs;
}

void set_group_lrs(torch::optim::Optimizer& optimizer, const std::vector<double>& lrs) {
  auto& groups = optimizer.param_groups();
  if (lrs.size() != groups.size()) {
    throw runtime_error("learning-rate schedule gives " + std::to_string(lrs.size()) +
                        " values for " + std::to_string(groups.size()) + " param groups");
  }
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(lrs[i]);
}

}  // namespace olv2
