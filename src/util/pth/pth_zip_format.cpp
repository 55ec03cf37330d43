#include <map>

#include "olv2/util/error.h"
#include "olv2/util/pth/pickle_reader.h"
#include "olv2/util/pth/pth_formats.h"
#include "olv2/util/pth/zip_reader.h"

namespace olv2 {

namespace {

// torch.save puts every entry under one folder (the file's stem in PyTorch 1.x, "archive" in
// 2.x); the pickle is <folder>/data.pkl.
std::string archive_folder(const ZipReader& zip) {
  for (const ZipReader::Entry& entry : zip.entries()) {
    const size_t slash = entry.name.find('/');
    if (slash != std::string::npos &&
        entry.name.compare(slash, std::string::npos, "/data.pkl") == 0) {
      return entry.name.substr(0, slash + 1);
    }
  }
  throw input_error("zip archive has no <folder>/data.pkl entry: not a torch.save file");
}

void check_byte_order(const ZipReader& zip, const std::string& folder) {
  const ZipReader::Entry* entry = zip.find(folder + "byteorder");
  if (entry == nullptr) return;  // written since PyTorch 2.0; older files are little-endian
  const std::string_view order = zip.read(*entry);
  if (order != "little")
    throw input_error("byteorder is `" + std::string(order) +
                      "`, only little-endian files are supported");
}

}  // namespace

PthValue parse_zip_pth(std::string_view bytes) {
  const ZipReader zip(bytes);
  const std::string folder = archive_folder(zip);
  check_byte_order(zip, folder);
  std::map<std::string, PthValue> storages;
  const PersistentLoader load_storage = [&](const PthValue& persistent_id) {
    const StorageId id = parse_storage_id(persistent_id);
    auto found = storages.find(id.key);
    if (found != storages.end()) {
      if (found->second.as_tensor().scalar_type() != id.dtype) {
        throw input_error("storage " + id.key + " is referred to with two element types");
      }
      return found->second;
    }
    const ZipReader::Entry* entry = zip.find(folder + "data/" + id.key);
    if (entry == nullptr)
      throw input_error("storage " + id.key + " is missing (no entry " + folder + "data/" + id.key +
                        ")");
    PthValue storage = storage_from_bytes(zip.read(*entry), id.dtype, id.numel, id.key);
    storages.emplace(id.key, storage);
    return storage;
  };
  return unpickle(zip.read(*zip.find(folder + "data.pkl")), load_storage);
}

}  // namespace olv2
