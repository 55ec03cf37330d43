#pragma once
#include <ATen/core/Tensor.h>

#include <vector>

namespace olv2 {

// The top-down path of mmdet's FPN: from the coarsest level down, each lateral gains the
// nearest-neighbour upsampling of the one above it to its own size.
void add_top_down(std::vector<at::Tensor>& laterals);

}  // namespace olv2
