#pragma once
// PyTorch's storage class names and the dtypes they hold.
#include <c10/core/ScalarType.h>

#include <optional>
#include <string>

namespace olv2 {

// The storage classes torch.save names in its persistent ids ("torch.FloatStorage", ...) and
// the element types they hold. Only the dtypes listed there are read and written.
std::optional<c10::ScalarType> dtype_of_storage_type(const std::string& type_name);
// Throws olv2::Error (runtime) for a dtype without a storage class here (complex, quantized).
std::string storage_type_of_dtype(c10::ScalarType dtype);

}  // namespace olv2
