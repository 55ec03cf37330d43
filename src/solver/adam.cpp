#include "olv2/solver/adam.h"

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>

#include "olv2/util/error.h"

namespace olv2 {

namespace {

template <typename ParamState>
ParamStateEntries entries_of(const ParamState& state) {
  ParamStateEntries entries;
  entries.step = static_cast<int64_t>(state.step());
  entries.tensors = {{"exp_avg", state.exp_avg()}, {"exp_avg_sq", state.exp_avg_sq()}};
  if (state.max_exp_avg_sq().defined()) {
    entries.tensors.emplace_back("max_exp_avg_sq", state.max_exp_avg_sq());
  }
  return entries;
}

template <typename ParamState>
std::unique_ptr<torch::optim::OptimizerParamState> state_of(const ParamStateEntries& entries,
                                                            const std::string& what) {
  require_state_names(entries, {"exp_avg", "exp_avg_sq"}, {"max_exp_avg_sq"}, "Adam", what);
  auto state = std::make_unique<ParamState>();
  state->step(entries.step.value_or(0));
  state->exp_avg(*entries.find("exp_avg"));
  state->exp_avg_sq(*entries.find("exp_avg_sq"));
  if (const at::Tensor* max = entries.find("max_exp_avg_sq")) state->max_exp_avg_sq(*max);
  return state;
}

template <typename Options>
std::vector<std::pair<std::string, PthValue>> settings_of(const Options& options) {
  return {{"lr", PthValue::from_float(options.lr())},
          {"betas", PthValue::tuple({PthValue::from_float(std::get<0>(options.betas())),
                                     PthValue::from_float(std::get<1>(options.betas()))})},
          {"eps", PthValue::from_float(options.eps())},
          {"weight_decay", PthValue::from_float(options.weight_decay())},
          {"amsgrad", PthValue::from_bool(options.amsgrad())}};
}

}  // namespace

Schema AdamOptions::schema(const std::string& type) {
  return common_schema(type)
      .optional("betas", Schema::sequence(Schema::number().range(0.0, 1.0)))
      .optional("eps", Schema::number().range(0.0, 1.0))
      .optional("amsgrad", Schema::boolean());
}

AdamOptions AdamOptions::from_config(const ConfigNode& section) {
  AdamOptions o;
  o.decoupled_weight_decay = section.at("type").as_string() == "AdamW";
  if (!o.decoupled_weight_decay) o.weight_decay = 0.0;  // torch.optim.Adam's default
  o.read_common(section);
  o.eps = section.get<double>("eps", o.eps);
  o.amsgrad = section.get<bool>("amsgrad", o.amsgrad);
  if (const ConfigNode* betas = section.find("betas"); betas != nullptr && !betas->is_null()) {
    const std::vector<double> values = betas->as_vector<double>();
    if (values.size() != 2) {
      throw input_error(betas->where() + ": expected two numbers [beta1, beta2], got " +
                        std::to_string(values.size()));
    }
    o.betas = {values[0], values[1]};
  }
  return o;
}

std::vector<std::pair<std::string, std::vector<double>>> AdamOptions::own_settings() const {
  return {{"betas", {betas[0], betas[1]}}, {"eps", {eps}}};
}

std::unique_ptr<torch::optim::OptimizerOptions> AdamOptions::group_options(
    double group_lr, double group_weight_decay) const {
  const std::tuple<double, double> torch_betas{betas[0], betas[1]};
  if (decoupled_weight_decay) {
    return std::make_unique<torch::optim::AdamWOptions>(torch::optim::AdamWOptions(group_lr)
                                                            .betas(torch_betas)
                                                            .eps(eps)
                                                            .weight_decay(group_weight_decay)
                                                            .amsgrad(amsgrad));
  }
  return std::make_unique<torch::optim::AdamOptions>(torch::optim::AdamOptions(group_lr)
                                                         .betas(torch_betas)
                                                         .eps(eps)
                                                         .weight_decay(group_weight_decay)
                                                         .amsgrad(amsgrad));
}

std::unique_ptr<torch::optim::Optimizer> AdamOptions::build_torch(
    std::vector<torch::optim::OptimizerParamGroup> groups) const {
  const std::unique_ptr<torch::optim::OptimizerOptions> defaults = group_options(lr, weight_decay);
  if (decoupled_weight_decay) {
    return std::make_unique<torch::optim::AdamW>(
        std::move(groups), static_cast<const torch::optim::AdamWOptions&>(*defaults));
  }
  return std::make_unique<torch::optim::Adam>(
      std::move(groups), static_cast<const torch::optim::AdamOptions&>(*defaults));
}

ParamStateEntries AdamOptions::state_entries(const torch::optim::OptimizerParamState& state) const {
  if (const auto* adamw = dynamic_cast<const torch::optim::AdamWParamState*>(&state)) {
    return entries_of(*adamw);
  }
  return entries_of(dynamic_cast<const torch::optim::AdamParamState&>(state));
}

std::unique_ptr<torch::optim::OptimizerParamState> AdamOptions::param_state(
    const ParamStateEntries& entries, const std::string& what) const {
  if (entries.tensors.empty() && !entries.step) return nullptr;
  if (!entries.step) throw input_error(what + ": Adam's state has no `step`");
  if (decoupled_weight_decay) return state_of<torch::optim::AdamWParamState>(entries, what);
  return state_of<torch::optim::AdamParamState>(entries, what);
}

std::vector<std::pair<std::string, PthValue>> AdamOptions::group_settings(
    const torch::optim::OptimizerOptions& options) const {
  if (const auto* adamw = dynamic_cast<const torch::optim::AdamWOptions*>(&options)) {
    return settings_of(*adamw);
  }
  return settings_of(dynamic_cast<const torch::optim::AdamOptions&>(options));
}

}  // namespace olv2
