#pragma once
// The optimizers an `optimizer.type` may name, by `type`, and the learning rates of their param
// groups.
#include <torch/optim/optimizer.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/registry.h"
#include "olv2/config/schema.h"
#include "olv2/solver/param_groups.h"
#include "olv2/util/pth/pth_value.h"

namespace olv2 {

// One parameter's optimizer state under the names PyTorch's `optimizer.state_dict()` gives it:
// the step count, for optimizers that keep one, and tensors shaped as the parameter
// (`exp_avg`, `momentum_buffer`, ...), in PyTorch's order.
struct ParamStateEntries {
  std::optional<int64_t> step;
  std::vector<std::pair<std::string, at::Tensor>> tensors;

  const at::Tensor* find(const std::string& name) const;
};

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
  // decay; a flag as 1 or 0.
  virtual std::vector<std::pair<std::string, std::vector<double>>> own_settings() const = 0;
  virtual std::shared_ptr<OptimizerOptions> copy() const = 0;

  // The optimizer's state as PyTorch's `state_dict()` lays it out, for checkpoints and for
  // ZeRO, which shards each tensor of it:
  // one parameter's torch state, named;
  virtual ParamStateEntries state_entries(const torch::optim::OptimizerParamState& state) const = 0;
  // a torch state from such entries, or null when they hold nothing to restore; an input error
  // naming `what` (the parameter) when they are not this optimizer's;
  virtual std::unique_ptr<torch::optim::OptimizerParamState> param_state(
      const ParamStateEntries& entries, const std::string& what) const = 0;
  // a param group's settings, `params` aside.
  virtual std::vector<std::pair<std::string, PthValue>> group_settings(
      const torch::optim::OptimizerOptions& options) const = 0;

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

// Throws an input error naming `what` unless `entries` holds every tensor of `required` and
// nothing but those and `optional`, so that the state of another optimizer type is named as
// such (an Adam checkpoint resumed under SGD); `type` is the optimizer's.
void require_state_names(const ParamStateEntries& entries, const std::vector<std::string>& required,
                         const std::vector<std::string>& optional, const std::string& type,
                         const std::string& what);

// The optimizers an `optimizer.type` may name.
const Registry<OptimizerOptions>& optimizer_registry();

// The current lr of every param group, in order.
std::vector<double> group_lrs(const torch::optim::Optimizer& optimizer);

// Sets the lr of every param group; `lrs` has one value per group.
void set_group_lrs(torch::optim::Optimizer& optimizer, const std::vector<double>& lrs);

}  // namespace olv2
