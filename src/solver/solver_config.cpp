#include "olv2/solver/solver_config.h"

#include "olv2/util/error.h"

namespace olv2 {
namespace {

std::vector<CustomKeyRule> custom_keys_from(const ConfigNode& optimizer) {
  std::vector<CustomKeyRule> rules;
  const ConfigNode* paramwise = optimizer.find("paramwise_cfg");
  if (paramwise == nullptr || paramwise->is_null()) return rules;
  const ConfigNode* keys = paramwise->find("custom_keys");
  if (keys == nullptr || keys->is_null()) return rules;
  for (const auto& [key, rule] : keys->entries()) {
    // mmcv needs a base weight decay to multiply.
    if (rule.has("decay_mult") && !optimizer.has("weight_decay")) {
      throw input_error(rule.at("decay_mult").where() +
                        ": decay_mult needs optimizer.weight_decay to be set "
                        "(as mmcv requires)");
    }
    rules.push_back({key, rule.get<double>("lr_mult", 1.0), rule.get<double>("decay_mult", 1.0)});
  }
  return rules;
}

}  // namespace

SolverOptions solver_options_from_config(const ConfigNode& optimizer,
                                         const ConfigNode* optimizer_config) {
  SolverOptions options;
  AdamOptions& adam = options.adam;
  adam.type = optimizer.get<std::string>("type", "AdamW");
  adam.lr = optimizer.at("lr").as_double();
  adam.weight_decay = optimizer.get<double>("weight_decay", adam.weight_decay);
  adam.eps = optimizer.get<double>("eps", adam.eps);
  adam.amsgrad = optimizer.get<bool>("amsgrad", adam.amsgrad);
  if (const ConfigNode* betas = optimizer.find("betas"); betas != nullptr && !betas->is_null()) {
    const std::vector<double> values = betas->as_vector<double>();
    if (values.size() != 2) {
      throw input_error(betas->where() + ": expected two numbers [beta1, beta2], got " +
                        std::to_string(values.size()));
    }
    adam.betas = {values[0], values[1]};
  }
  adam.decoupled_weight_decay = true;
  options.custom_keys = custom_keys_from(optimizer);

  if (optimizer_config != nullptr && !optimizer_config->is_null()) {
    const ConfigNode* clip = optimizer_config->find("grad_clip");
    if (clip != nullptr && !clip->is_null()) {
      GradClipOptions grad_clip;
      grad_clip.max_norm = clip->at("max_norm").as_double();
      grad_clip.norm_type = clip->get<double>("norm_type", grad_clip.norm_type);
      if (!(grad_clip.norm_type > 0.0)) {
        throw input_error(clip->at("norm_type").where() + ": expected a norm order > 0");
      }
      options.grad_clip = grad_clip;
    }
  }
  return options;
}

}  // namespace olv2
