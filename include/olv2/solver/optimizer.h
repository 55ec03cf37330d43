#pragma once
// The optimizers an `optimizer.type` may name, by `type`, and the learning rates of their param
// groups.
#include <torch/optim/optimizer.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/registry.h"
#include "olv2/config/schema.h"
#include "olv2/solver/param_groups.h"

namespace olv2 {

// An `optimizer` section: the keys every optimizer takes from mmcv's DefaultOptimizerConstructor
// (`lr`, `weight_decay`, `paramwise_cfg.custom_keys`) and the optimizer's own.
struct OptimizerOptions {
  virtual ~OptimizerOptions() = default;

  std::string type;  // as named in the config
  double lr = 1e-3;
  double weight_decay = 0.0;
  std::vector<CustomKeyRule> custom_keys;  // paramwise_cfg.custom_keys, as written

  ParamGroupRules param_group_rules() const { return {lr, weight_decay, custom_keys}; }
  // A torch optimizer with one param group per group (same order), each with the group's lr and
  // weight decay; an error when there is no group.
  std::unique_ptr<torch::optim::Optimizer> build(const std::vector<ParamGroup>& groups) const;
  // The optimizer's own numeric settings for the log, as (key, values), beside lr and weight
  // decay.
  virtual std::vector<std::pair<std::string, std::vector<double>>> own_settings() const = 0;
  virtual std::shared_ptr<OptimizerOptions> copy() const = 0;

 protected:
  // A param group's torch options.
  virtual std::unique_ptr<torch::optim::OptimizerOptions> group_options(
      double group_lr, double group_weight_decay) const = 0;
  // The torch optimizer over `groups`, its defaults those of lr and weight_decay.
  virtual std::unique_ptr<torch::optim::Optimizer> build_torch(
      std::vector<torch::optim::OptimizerParamGroup> groups) const = 0;

  // The schema of `type` with the common keys; the optimizer adds its own.
  static Schema common_schema(const std::string& type);
  // Reads the common keys; an input error for a decay_mult without a base weight decay, as mmcv.
  void read_common(const ConfigNode& section);
};

// The optimizers an `optimizer.type` may name.
const Registry<OptimizerOptions>& optimizer_registry();

// The current lr of every param group, in order.
std::vector<double> group_lrs(const torch::optim::Optimizer& optimizer);

// Sets the lr of every param group; `lrs` has one value per group.
void set_group_lrs(torch::optim::Optimizer& optimizer, const std::vector<double>& lrs);

}  // namespace olv2
