#pragma once
// State dicts: a module's tensors in PyTorch's `state_dict()` order, to and from `.pth` values, and
// loading them.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>

#include <string>
#include <utility>
#include <vector>

#include "olv2/util/pth/pth_value.h"

namespace olv2 {

// Named tensors in a fixed order, as a state dict holds them.
using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;

// The module's parameters and buffers under their state-dict keys, in PyTorch's
// `state_dict()` order: a module's own parameters, then its own buffers, then each child
// recursively. (torch::nn::Module::named_parameters lists all parameters before any buffer.)
NamedTensors module_state_dict(const torch::nn::Module& module);

// The tensors of a state-dict value (a dict or OrderedDict of tensors), in file order. Throws
// olv2::Error (input) naming the first key whose value is not a tensor.
NamedTensors tensors_of(const PthValue& state_dict);

// A PthValue OrderedDict of `tensors`, ready for write_pth.
PthValue to_pth_value(const NamedTensors& tensors);

struct LoadStateDictOptions {
  // Missing and unexpected keys are errors (as in PyTorch); when false they are only reported.
  bool strict = true;
  // Only checkpoint keys starting with this are used, with it removed: "module." for files
  // saved from a wrapped model, "img_backbone." to load one part of a full checkpoint.
  std::string prefix;
};

struct LoadStateDictReport {
  std::vector<std::string> missing_keys;     // in the module, not in the checkpoint
  std::vector<std::string> unexpected_keys;  // in the checkpoint, not in the module
};

// Copies `tensors` into the module's parameters and buffers (converting dtype, keeping the
// module's device). Shape mismatches are always errors; with `strict`, so are missing and
// unexpected keys. All problems are listed together in one olv2::Error (input); nothing is
// copied when it throws.
LoadStateDictReport load_state_dict(torch::nn::Module& module, const NamedTensors& tensors,
                                    const LoadStateDictOptions& options = {});

}  // namespace olv2
