#pragma once
// Objects pickled as torch.save pickles them, tensors referring to their storages.
#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "olv2/util/pth/pth_value.h"

namespace olv2 {

// A storage the pickle refers to by key: its bytes (a CPU uint8 tensor over the whole storage).
struct PickledStorage {
  std::string key;
  at::Tensor bytes;
};

// Serializes `value` as a protocol-2 pickle the way torch.save does: a tensor becomes a call of
// torch._utils._rebuild_tensor_v2 whose storage is the persistent id
// ('storage', torch.<T>Storage, key, 'cpu', numel). Each distinct storage is appended once to
// `storages`, so tensors sharing one still share it after loading. Throws olv2::Error (runtime)
// for opaque values, bare storages and tensors of unsupported dtypes or layouts.
std::string pickle_for_pth(const PthValue& value, std::vector<PickledStorage>& storages);

}  // namespace olv2
