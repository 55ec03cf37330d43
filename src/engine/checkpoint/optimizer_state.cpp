#include "olv2/engine/checkpoint/optimizer_state.h"

#include <sstream>
#include <string>

#include "olv2/util/compat.h"
#include "olv2/util/error.h"

namespace olv2 {

namespace {

std::string shape_text(const at::Tensor& tensor) {
  std::ostringstream out;
  out << tensor.sizes();
  return out.str();
}

PthValue param_state_to_pth(const ParamStateEntries& entries) {
  PthValue entry = PthValue::dict();
  if (entries.step) {
    entry.set("step",
              PthValue::tensor(at::scalar_tensor(static_cast<double>(*entries.step), at::kFloat)));
  }
  for (const auto& [name, tensor] : entries.tensors) {
    entry.set(name, PthValue::tensor(tensor.detach().to(at::kCPU).clone()));
  }
  return entry;
}

// PyTorch writes the step as a tensor (since 1.12) or, before, as an int.
int64_t step_of(const PthValue& value) {
  return value.is_tensor() ? static_cast<int64_t>(value.as_tensor().item<double>())
                           : value.as_int();
}

ParamStateEntries param_state_from_pth(const PthValue& entry, const at::Tensor& param,
                                       const std::string& what) {
  ParamStateEntries entries;
  for (const auto& [key, value] : entry.dict_items()) {
    const std::string name = key.to_string();
    if (name == "step") {
      entries.step = step_of(value);
    } else if (value.is_tensor()) {
      const at::Tensor& tensor = value.as_tensor();
      if (!tensor.sizes().equals(param.sizes())) {
        throw input_error(what + ": `" + name + "` has shape " + shape_text(tensor) +
                          ", the parameter " + shape_text(param));
      }
      entries.tensors.emplace_back(name, tensor.to(param.options()).clone());
    } else if (!value.is_none()) {
      throw input_error(what + ": `" + name + "` is neither a tensor nor None");
    }
  }
  return entries;
}

}  // namespace

PthValue optimizer_state_to_pth(const torch::optim::Optimizer& optimizer,
                                const OptimizerOptions& options) {
  PthValue states = PthValue::dict();
  PthValue groups = PthValue::list();
  int64_t index = 0;
  for (const auto& group : optimizer.param_groups()) {
    PthValue indices = PthValue::list();
    for (const at::Tensor& param : group.params()) {
      auto found = optimizer.state().find(compat::optimizer_state_key(param));
      if (found != optimizer.state().end()) {
        states.set(index, param_state_to_pth(options.state_entries(*found->second)));
      }
      indices.items().push_back(PthValue::from_int(index++));
    }
    PthValue entry = PthValue::dict();
    for (auto& [key, value] : options.group_settings(group.options())) entry.set(key, value);
    entry.set("params", indices);
    groups.items().push_back(entry);
  }
  PthValue result = PthValue::dict();
  result.set("state", states);
  result.set("param_groups", groups);
  return result;
}

void optimizer_state_from_pth(torch::optim::Optimizer& optimizer, const OptimizerOptions& options,
                              const PthValue& state) {
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
    for (const at::Tensor& param : group.params()) {
      if (const PthValue* entry = states.find(index)) {
        const std::string what = "optimizer state of parameter " + std::to_string(index);
        std::unique_ptr<torch::optim::OptimizerParamState> restored =
            options.param_state(param_state_from_pth(*entry, param, what), what);
        if (restored) optimizer.state()[compat::optimizer_state_key(param)] = std::move(restored);
      }
      ++index;
    }
  }
}

}  // namespace olv2
