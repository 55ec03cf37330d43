#include <ATen/ATen.h>

#include <cstring>

#include "olv2/util/error.h"
#include "olv2/util/pth/pth_formats.h"
#include "olv2/util/pth/torch_storage_types.h"

namespace olv2 {

StorageId parse_storage_id(const PthValue& persistent_id) {
  if (persistent_id.kind() != PthValue::Kind::kTuple) {
    throw input_error(std::string("persistent id is a ") + persistent_id.kind_name() +
                      ", expected a tuple");
  }
  const auto& fields = persistent_id.items();
  if (fields.size() < 5 || fields[0].kind() != PthValue::Kind::kString ||
      fields[0].as_string() != "storage") {
    throw input_error("persistent id is not ('storage', type, key, location, numel)");
  }
  if (fields[1].kind() != PthValue::Kind::kOpaque)
    throw input_error("persistent id names no storage type");
  const std::string& type_name = fields[1].as_opaque().type_name;
  const std::optional<c10::ScalarType> dtype = dtype_of_storage_type(type_name);
  if (!dtype) throw input_error("unsupported storage type " + type_name);
  StorageId id{*dtype,
               fields[2].kind() == PthValue::Kind::kInt ? std::to_string(fields[2].as_int())
                                                        : fields[2].as_string(),
               fields[4].as_int(), fields.size() > 5 ? fields[5] : PthValue()};
  for (const char c : id.key) {
    if (c < 0x21 || c > 0x7E) throw input_error("storage key is not printable text");
  }
  if (id.numel < 0) throw input_error("storage " + id.key + " has a negative size");
  return id;
}

uint64_t storage_bytes(c10::ScalarType dtype, int64_t numel, uint64_t limit,
                       const std::string& key) {
  const uint64_t item_size = c10::elementSize(dtype);
  if (numel < 0 || static_cast<uint64_t>(numel) > limit / item_size) {
    throw input_error("storage " + key + " declares " + std::to_string(numel) +
                      " elements, more than the file holds");
  }
  return static_cast<uint64_t>(numel) * item_size;
}

PthValue storage_from_bytes(std::string_view bytes, c10::ScalarType dtype, int64_t numel,
                            const std::string& key) {
  const uint64_t expected = storage_bytes(dtype, numel, bytes.size(), key);
  if (expected != bytes.size()) {
    throw input_error("storage " + key + " holds " + std::to_string(bytes.size()) +
                      " bytes, expected " + std::to_string(expected) + " (" +
                      std::to_string(numel) + " x " + c10::toString(dtype) + ")");
  }
  if (dtype == c10::ScalarType::Bool) {
    for (const char byte : bytes) {
      if (byte != 0 && byte != 1)
        throw input_error("bool storage " + key + " holds a byte other than 0 or 1");
    }
  }
  at::Tensor storage = at::empty({numel}, at::TensorOptions().dtype(dtype));
  if (!bytes.empty()) std::memcpy(storage.data_ptr(), bytes.data(), bytes.size());
  return PthValue::storage(storage);
}

}  // namespace olv2
