#pragma once
// `.pth` files as PyTorch's torch.save writes them, zip or legacy: reading and writing them.
#include <filesystem>
#include <string>
#include <string_view>

#include "olv2/util/pth/pth_value.h"

namespace olv2 {

// The two layouts torch.save writes: a zip archive (default since PyTorch 1.6) and the legacy
// stream of pickles followed by raw storages (`_use_new_zipfile_serialization=False`).
enum class PthFormat { kZip, kLegacy, kUnknown };
PthFormat detect_pth_format(std::string_view bytes);
const char* to_string(PthFormat format);

// Reads a file written by Python's torch.save: tensors come back on the CPU with their dtype,
// offset, size and stride, tensors that shared a storage share it, OrderedDicts keep their
// order, numpy scalars/arrays become numbers/tensors, other Python objects stay opaque. Every
// problem throws olv2::Error (input) naming the file and what is wrong.
PthValue read_pth(const std::filesystem::path& path);
// The same on bytes already in memory; messages do not name a file.
PthValue parse_pth(std::string_view bytes);

// Writes `value` in the zip format that Python's torch.load reads (storages saved for the
// CPU). The file appears complete or not at all: it is written beside `path` and renamed.
// Throws olv2::Error (runtime) naming the file on failure, or for values Python cannot
// receive (opaque objects, unsupported dtypes).
void write_pth(const std::filesystem::path& path, const PthValue& value);
// The bytes write_pth would write.
std::string serialize_pth(const PthValue& value);

}  // namespace olv2
