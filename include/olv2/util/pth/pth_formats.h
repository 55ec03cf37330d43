#pragma once
// What the zip and legacy `.pth` readers share: storage ids and storages from raw bytes.
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "olv2/util/pth/pth_value.h"

namespace olv2 {

// The parts shared by the zip and legacy .pth layouts (see pth_file.h for the public API).

// A storage persistent id: ('storage', torch.<T>Storage, key, location, numel[, view]).
struct StorageId {
  c10::ScalarType dtype;
  std::string key;
  int64_t numel = 0;
  PthValue view_metadata;  // legacy format only: None, or (view key, offset, size)
};
StorageId parse_storage_id(const PthValue& persistent_id);

// A storage of `numel` elements of `dtype` filled from `bytes` (which must hold exactly that).
PthValue storage_from_bytes(std::string_view bytes, c10::ScalarType dtype, int64_t numel,
                            const std::string& key);

// Bytes needed by `numel` elements of `dtype`; throws when that overflows or exceeds `limit`.
uint64_t storage_bytes(c10::ScalarType dtype, int64_t numel, uint64_t limit,
                       const std::string& key);

PthValue parse_zip_pth(std::string_view bytes);
PthValue parse_legacy_pth(std::string_view bytes);

}  // namespace olv2
