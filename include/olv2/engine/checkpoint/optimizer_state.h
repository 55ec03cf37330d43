#pragma once
// The Adam/AdamW state in a checkpoint, laid out as PyTorch's `optimizer.state_dict()`.
#include <torch/optim/optimizer.h>

#include <vector>

#include "olv2/util/pth/pth_value.h"

namespace olv2 {

// The Adam/AdamW state in the layout of Python's `optimizer.state_dict()`:
// {'state': {index: {'step', 'exp_avg', 'exp_avg_sq'[, 'max_exp_avg_sq']}},
//  'param_groups': [{'lr', 'betas', 'eps', 'weight_decay', 'amsgrad', 'params': [index, ...]}]},
// parameters numbered across groups in order, as PyTorch does.
PthValue adam_state_to_pth(const torch::optim::Optimizer& optimizer);

// Restores a state written by adam_state_to_pth into an optimizer over the same parameter
// groups. Throws an input error naming what does not fit (group or parameter counts, shapes).
void adam_state_from_pth(torch::optim::Optimizer& optimizer, const PthValue& state);

}  // namespace olv2
