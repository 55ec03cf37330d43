#include "olv2/util/state_dict.h"

#include <torch/torch.h>

#include <map>
#include <sstream>

#include "olv2/util/error.h"

namespace olv2 {

namespace {

void append_state(const torch::nn::Module& module, const std::string& prefix, NamedTensors& out) {
  for (const auto& item : module.named_parameters(/*recurse=*/false)) {
    if (item.value().defined()) out.emplace_back(prefix + item.key(), item.value());
  }
  for (const auto& item : module.named_buffers(/*recurse=*/false)) {
    if (item.value().defined()) out.emplace_back(prefix + item.key(), item.value());
  }
  for (const auto& child : module.named_children())
    append_state(*child.value(), prefix + child.key() + ".", out);
}

std::string shape_string(const at::Tensor& tensor) { return c10::str(tensor.sizes()); }

void list_section(std::ostringstream& message, const char* title,
                  const std::vector<std::string>& lines) {
  if (lines.empty()) return;
  message << "\n  " << title << " (" << lines.size() << "):";
  for (const std::string& line : lines) message << "\n    " << line;
}

}  // namespace

NamedTensors module_state_dict(const torch::nn::Module& module) {
  NamedTensors out;
  append_state(module, "", out);
  return out;
}

NamedTensors tensors_of(const PthValue& state_dict) {
  NamedTensors out;
  for (const auto& [key, value] : state_dict.dict_items()) {
    if (!value.is_tensor()) {
      throw input_error("state dict entry `" + key.to_string() + "` is a " + value.kind_name() +
                        ", expected a tensor");
    }
    out.emplace_back(key.to_string(), value.as_tensor());
  }
  return out;
}

PthValue to_pth_value(const NamedTensors& tensors) {
  PthDictItems items;
  items.reserve(tensors.size());
  for (const auto& [name, tensor] : tensors) items.emplace_back(name, PthValue::tensor(tensor));
  return PthValue::dict(std::move(items), /*ordered=*/true);
}

LoadStateDictReport load_state_dict(torch::nn::Module& module, const NamedTensors& tensors,
                                    const LoadStateDictOptions& options) {
  std::map<std::string, at::Tensor> source;
  std::vector<std::string> source_order;
  for (const auto& [name, tensor] : tensors) {
    if (name.compare(0, options.prefix.size(), options.prefix) != 0) continue;
    const std::string key = name.substr(options.prefix.size());
    if (source.emplace(key, tensor).second) source_order.push_back(key);
  }
  const NamedTensors targets = module_state_dict(module);
  LoadStateDictReport report;
  std::vector<std::string> mismatched;
  std::map<std::string, bool> known;
  for (const auto& [name, target] : targets) {
    known[name] = true;
    auto it = source.find(name);
    if (it == source.end()) {
      report.missing_keys.push_back(name);
    } else if (it->second.sizes() != target.sizes()) {
      mismatched.push_back(name + ": checkpoint " + shape_string(it->second) + ", module " +
                           shape_string(target));
    }
  }
  for (const std::string& name : source_order) {
    if (known.count(name) == 0) report.unexpected_keys.push_back(name);
  }
  const bool key_errors =
      options.strict && (!report.missing_keys.empty() || !report.unexpected_keys.empty());
  if (key_errors || !mismatched.empty()) {
    std::ostringstream message;
    message << "state dict does not match the module";
    if (!options.prefix.empty())
      message << " (checkpoint keys under prefix `" << options.prefix << "`)";
    message << ":";
    if (options.strict) {
      list_section(message, "missing keys", report.missing_keys);
      list_section(message, "unexpected keys", report.unexpected_keys);
    }
    list_section(message, "shape mismatches", mismatched);
    throw input_error(message.str());
  }
  torch::NoGradGuard no_grad;
  for (const auto& [name, target] : targets) {
    auto it = source.find(name);
    if (it == source.end()) continue;
    at::Tensor destination = target;
    destination.copy_(it->second);
  }
  return report;
}

}  // namespace olv2
