#pragma once
// A readable tree of a `.pth` file's contents, dtypes and shapes.
#include <ATen/core/Tensor.h>

#include <cstddef>
#include <ostream>
#include <string>

#include "olv2/util/pth/pth_value.h"

namespace olv2 {

struct PthPrintOptions {
  bool tensor_values = false;  // add min/max/mean and the first values of each tensor
  size_t max_items = 16;  // list/tuple items shown before "... (N more)"; dicts are shown whole
};

// "float32", "bfloat16", "int64", ...: PyTorch's names of dtypes.
std::string dtype_name(c10::ScalarType dtype);
// "float32 [8, 5]", plus the offset and strides of a non-contiguous view.
std::string describe_tensor(const at::Tensor& tensor);

// Writes the tree of `value` one entry per line, indented by depth: keys, kinds, tensor dtypes
// and shapes, scalar and string values.
void print_pth_tree(std::ostream& out, const PthValue& value, const PthPrintOptions& options = {});

}  // namespace olv2
