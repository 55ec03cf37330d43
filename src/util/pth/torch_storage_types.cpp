#include "olv2/util/pth/torch_storage_types.h"

#include <array>
#include <utility>

#include "olv2/util/error.h"

namespace olv2 {

namespace {

constexpr std::array<std::pair<const char*, c10::ScalarType>, 10> kStorageTypes{{
    {"torch.FloatStorage", c10::ScalarType::Float},
    {"torch.DoubleStorage", c10::ScalarType::Double},
    {"torch.HalfStorage", c10::ScalarType::Half},
    {"torch.BFloat16Storage", c10::ScalarType::BFloat16},
    {"torch.LongStorage", c10::ScalarType::Long},
    {"torch.IntStorage", c10::ScalarType::Int},
    {"torch.ShortStorage", c10::ScalarType::Short},
    {"torch.CharStorage", c10::ScalarType::Char},
    {"torch.ByteStorage", c10::ScalarType::Byte},
    {"torch.BoolStorage", c10::ScalarType::Bool},
}};

}  // namespace

std::optional<c10::ScalarType> dtype_of_storage_type(const std::string& type_name) {
  for (const auto& [name, dtype] : kStorageTypes) {
    if (type_name == name) return dtype;
  }
  return std::nullopt;
}

std::string storage_type_of_dtype(c10::ScalarType dtype) {
  for (const auto& [name, storage_dtype] : kStorageTypes) {
    if (dtype == storage_dtype) return name;
  }
  throw runtime_error(std::string("tensors of dtype ") + c10::toString(dtype) +
                      " cannot be written to a .pth file");
}

}  // namespace olv2
