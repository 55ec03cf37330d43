#include "olv2/engine/checkpoint/optimizer_state.h"

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>

#include "olv2/util/compat.h"
#include "olv2/util/error.h"

namespace olv2 {

namespace {

struct GroupSettings {
  double lr = 0.0;
  double weight_decay = 0.0;
  double eps = 0.0;
  double beta1 = 0.0;
  double beta2 = 0.0;
  bool amsgrad = false;
};

GroupSettings settings_of(const torch::optim::OptimizerParamGroup& group) {
  const auto& options = group.options();
  if (const auto* adamw = dynamic_cast<const torch::optim::AdamWOptions*>(&options)) {
    return {adamw->lr(),
            adamw->weight_decay(),
            adamw->eps(),
            std::get<0>(adamw->betas()),
            std::get<1>(adamw->betas()),
            adamw->amsgrad()};
  }
  if (const auto* adam = dynamic_cast<const torch::optim::AdamOptions*>(&options)) {
    return {adam->lr(),
            adam->weight_decay(),
            adam->eps(),
            std::get<0>(adam->betas()),
            std::get<1>(adam->betas()),
            adam->amsgrad()};
  }
  throw runtime_error("optimizer state: only Adam and AdamW optimizers can be saved");
}

template <typename ParamState>
PthValue param_state_to_pth(const ParamState& state, bool amsgrad) {
  PthValue entry = PthValue::dict();
  entry.set("step",
            PthValue::tensor(at::scalar_tensor(static_cast<double>(state.step()), at::kFloat)));
  entry.set("exp_avg", PthValue::tensor(state.exp_avg().detach().to(at::kCPU).clone()));
  entry.set("exp_avg_sq", PthValue::tensor(state.exp_avg_sq().detach().to(at::kCPU).clone()));
  if (amsgrad) {
    entry.set("max_exp_avg_sq",
              PthValue::tensor(state.max_exp_avg_sq().detach().to(at::kCPU).clone()));
  }
  return entry;
}

int64_t step_of(const PthValue& value) {
  return value.is_tensor() ? static_cast<int64_t>(value.as_tensor().item<double>())
                           : value.as_int();
}

template <typename ParamState>
std::unique_ptr<ParamState> param_state_from_pth(const PthValue& entry, const at::Tensor& param,
                                                 int64_t index) {
  auto state = std::make_unique<ParamState>();
  state->step(step_of(entry.at("step")));
  const auto load = [&](const char* key) {
    const at::Tensor& tensor = entry.at(key).as_tensor();
    if (!tensor.sizes().equals(param.sizes())) {
      throw input_error("optimizer state of parameter " + std::to_string(index) + ": `" + key +
                        "` has another shape than the parameter");
    }
    return tensor.to(param.options()).clone();
  };
  state->exp_avg(load("exp_avg"));
  state->exp_avg_sq(load("exp_avg_sq"));
  if (entry.find("max_exp_avg_sq") != nullptr) state->max_exp_avg_sq(load("max_exp_avg_sq"));
  return state;
}

}  // namespace

PthValue adam_state_to_pth(const torch::optim::Optimizer& optimizer) {
  PthValue states = PthValue::dict();
  PthValue groups = PthValue::list();
  int64_t index = 0;
  for (const auto& group : optimizer.param_groups()) {
    const GroupSettings settings = settings_of(group);
    PthValue indices = PthValue::list();
    for (const at::Tensor& param : group.params()) {
      auto found = optimizer.state().find(compat::optimizer_state_key(param));
      if (found != optimizer.state().end()) {
        if (const auto* adamw =
                dynamic_cast<const torch::optim::AdamWParamState*>(found->second.get())) {
          states.set(index, param_state_to_pth(*adamw, settings.amsgrad));
        } else if (const auto* adam =
                       dynamic_cast<const torch::optim::AdamParamState*>(found->second.get())) {
          states.set(index, param_state_to_pth(*adam, settings.amsgrad));
        }
      }
      indices.items().push_back(PthValue::from_int(index++));
    }
    PthValue entry = PthValue::dict();
    entry.set("lr", PthValue::from_float(settings.lr));
    entry.set("betas", PthValue::tuple({PthValue::from_float(settings.beta1),
                                        PthValue::from_float(settings.beta2)}));
    entry.set("eps", PthValue::from_float(settings.eps));
    entry.set("weight_decay", PthValue::from_float(settings.weight_decay));
    entry.set("amsgrad", PthValue::from_bool(settings.amsgrad));
    entry.set("params", indices);
    groups.items().push_back(entry);
  }
  PthValue result = PthValue::dict();
  result.set("state", states);
  result.set("param_groups", groups);
  return result;
}

void adam_state_from_pth(torch::optim::Optimizer& optimizer, const PthValue& state) {
  const auto& groups = state.at("param_groups").items();
  if (groups.size() != optimizer.param_groups().size()) {
    throw input_error("optimizer state has " + std::to_string(groups.size()) +
                      " parameter groups, the model's optimizer " +
                      std::to_string(optimizer.param_groups().size()));
  }
  const PthValue& states = state.at("state");
  int64_t index = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    auto& group = optimizer.param_groups()[g];
    if (groups[g].at("params").items().size() != group.params().size()) {
      throw input_error("optimizer state: parameter group " + std::to_string(g) + " has " +
                        std::to_string(groups[g].at("params").items().size()) +
                        " parameters, the model's " + std::to_string(group.params().size()));
    }
    const bool adamw = dynamic_cast<torch::optim::AdamWOptions*>(&group.options()) != nullptr;
    for (const at::Tensor& param : group.params()) {
      if (const PthValue* entry = states.find(index)) {
        auto key = compat::optimizer_state_key(param);
        if (adamw) {
          optimizer.state()[key] =
              param_state_from_pth<torch::optim::AdamWParamState>(*entry, param, index);
        } else {
          optimizer.state()[key] =
              param_state_from_pth<torch::optim::AdamParamState>(*entry, param, index);
        }
      }
      ++index;
    }
  }
}

}  // namespace olv2
