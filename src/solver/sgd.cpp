#include "olv2/solver/sgd.h"

#include <torch/optim/sgd.h>

#include "olv2/util/error.h"

namespace olv2 {

Schema SgdOptions::schema() {
  return common_schema("SGD")
      .optional("momentum", Schema::number().range(0.0, 1e3))
      .optional("dampening", Schema::number().range(0.0, 1e3))
      .optional("nesterov", Schema::boolean());
}

SgdOptions SgdOptions::from_config(const ConfigNode& section) {
  SgdOptions o;
  o.read_common(section);
  o.momentum = section.get<double>("momentum", o.momentum);
  o.dampening = section.get<double>("dampening", o.dampening);
  o.nesterov = section.get<bool>("nesterov", o.nesterov);
  if (o.nesterov && (o.momentum <= 0.0 || o.dampening != 0.0)) {
    throw input_error(section.at("nesterov").where() +
                      ": Nesterov momentum needs a momentum above 0 and zero dampening "
                      "(as torch.optim.SGD requires)");
  }
  return o;
}

std::vector<std::pair<std::string, std::vector<double>>> SgdOptions::own_settings() const {
  return {
      {"momentum", {momentum}}, {"dampening", {dampening}}, {"nesterov", {nesterov ? 1.0 : 0.0}}};
}

ParamStateEntries SgdOptions::state_entries(const torch::optim::OptimizerParamState& state) const {
  ParamStateEntries entries;
  const at::Tensor& buffer =
      dynamic_cast<const torch::optim::SGDParamState&>(state).momentum_buffer();
  if (buffer.defined()) entries.tensors.emplace_back("momentum_buffer", buffer);
  return entries;
}

std::unique_ptr<torch::optim::OptimizerParamState> SgdOptions::param_state(
    const ParamStateEntries& entries, const std::string& what) const {
  if (entries.step) {
    throw input_error(what +
                      " holds a `step`, which optimizer type SGD does not keep (a state "
                      "written by another optimizer type?)");
  }
  // Without a buffer torch's SGD starts one at the next step, as Python's does from None.
  if (entries.tensors.empty()) return nullptr;
  require_state_names(entries, {"momentum_buffer"}, {}, "SGD", what);
  auto state = std::make_unique<torch::optim::SGDParamState>();
  state->momentum_buffer(*entries.find("momentum_buffer"));
  return state;
}

std::vector<std::pair<std::string, PthValue>> SgdOptions::group_settings(
    const torch::optim::OptimizerOptions& options) const {
  const auto& sgd = dynamic_cast<const torch::optim::SGDOptions&>(options);
  return {{"lr", PthValue::from_float(sgd.lr())},
          {"momentum", PthValue::from_float(sgd.momentum())},
          {"dampening", PthValue::from_float(sgd.dampening())},
          {"weight_decay", PthValue::from_float(sgd.weight_decay())},
          {"nesterov", PthValue::from_bool(sgd.nesterov())},
          {"maximize", PthValue::from_bool(false)}};
}

std::unique_ptr<torch::optim::OptimizerOptions> SgdOptions::group_options(
    double group_lr, double group_weight_decay) const {
  return std::make_unique<torch::optim::SGDOptions>(torch::optim::SGDOptions(group_lr)
                                                        .momentum(momentum)
                                                        .dampening(dampening)
                                                        .weight_decay(group_weight_decay)
                                                        .nesterov(nesterov));
}

std::unique_ptr<torch::optim::Optimizer> SgdOptions::build_torch(
    std::vector<torch::optim::OptimizerParamGroup> groups) const {
  const std::unique_ptr<torch::optim::OptimizerOptions> defaults = group_options(lr, weight_decay);
  return std::make_unique<torch::optim::SGD>(
      std::move(groups), static_cast<const torch::optim::SGDOptions&>(*defaults));
}

}  // namespace olv2
