#pragma once
// An optimizer's state in a checkpoint, laid out as PyTorch's `optimizer.state_dict()`.
#include <torch/optim/optimizer.h>

#include "olv2/solver/optimizer.h"
#include "olv2/util/pth/pth_value.h"

namespace olv2 {

// The state of `optimizer`, built from `options`, in the layout of Python's
// `optimizer.state_dict()`: {'state': {index: {name: value}}, 'param_groups': [{settings...,
// 'params': [index, ...]}]}, parameters numbered across groups in order, as PyTorch does; the
// names and settings are the optimizer type's (OptimizerOptions::state_entries,
// group_settings), a step count as a float tensor, as PyTorch writes it.
PthValue optimizer_state_to_pth(const torch::optim::Optimizer& optimizer,
                                const OptimizerOptions& options);

// Restores such a state (ours or PyTorch's) into an optimizer built from `options` over the same
// parameter groups. Throws an input error naming what does not fit (group or parameter counts,
// shapes, a state of another optimizer type).
void optimizer_state_from_pth(torch::optim::Optimizer& optimizer, const OptimizerOptions& options,
                              const PthValue& state);

}  // namespace olv2
