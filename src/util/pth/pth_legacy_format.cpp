#include <ATen/ATen.h>

#include <cstring>
#include <map>
#include <set>

#include "olv2/util/error.h"
#include "olv2/util/pth/byte_reader.h"
#include "olv2/util/pth/pickle_reader.h"
#include "olv2/util/pth/pth_formats.h"

namespace olv2 {

namespace {

// pickle(0x1950a86a20f9469cfc6c) with protocol 2: the legacy format's magic number.
constexpr std::string_view kMagic("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19\x2e",
                                  15);
constexpr int64_t kProtocolVersion = 1001;

PthValue no_persistent_ids(const PthValue&) {
  throw input_error("unexpected persistent id in a header pickle");
}

// Storages are declared while unpickling and filled from the raw records that follow.
class LegacyStorages {
 public:
  explicit LegacyStorages(uint64_t file_size) : budget_(file_size) {}

  PthValue load(const PthValue& persistent_id) {
    if (persistent_id.kind() == PthValue::Kind::kTuple && !persistent_id.items().empty() &&
        persistent_id.items()[0].kind() == PthValue::Kind::kString &&
        persistent_id.items()[0].as_string() == "module") {
      return PthValue::opaque(
          {"torch.nn.Module",
           "a whole pickled module (saved with torch.save(model)) is not decoded", false});
    }
    const StorageId id = parse_storage_id(persistent_id);
    PthValue root = declare(id);
    if (id.view_metadata.is_none()) return root;
    return view(root, id);
  }

  void fill(ByteReader& reader, const std::string& key) {
    auto it = storages_.find(key);
    if (it == storages_.end()) throw input_error("storage " + key + " is listed but never used");
    if (!filled_.insert(key).second) throw input_error("storage " + key + " is listed twice");
    const at::Tensor& storage = it->second.as_tensor();
    const uint64_t numel = reader.u64();
    if (numel != static_cast<uint64_t>(storage.numel())) {
      throw input_error("storage " + key + " has " + std::to_string(numel) +
                        " elements, its tensors expect " + std::to_string(storage.numel()));
    }
    const std::string_view data = reader.take(storage.nbytes());
    const PthValue checked = storage_from_bytes(data, storage.scalar_type(), storage.numel(), key);
    storage.copy_(checked.as_tensor());
  }

  void check_all_filled() const {
    for (const auto& entry : storages_) {
      if (filled_.count(entry.first) == 0)
        throw input_error("storage " + entry.first + " has no data");
    }
  }

 private:
  PthValue declare(const StorageId& id) {
    auto it = storages_.find(id.key);
    if (it != storages_.end()) {
      if (it->second.as_tensor().scalar_type() != id.dtype ||
          it->second.as_tensor().numel() != id.numel) {
        throw input_error("storage " + id.key + " is declared twice with different types or sizes");
      }
      return it->second;
    }
    const uint64_t bytes = storage_bytes(id.dtype, id.numel, budget_, id.key);
    budget_ -= bytes;
    PthValue storage =
        PthValue::storage(at::zeros({id.numel}, at::TensorOptions().dtype(id.dtype)));
    storages_.emplace(id.key, storage);
    return storage;
  }

  // (view key, offset, size): a slice of the root storage, as storages shared before PyTorch 1.0.
  static PthValue view(const PthValue& root, const StorageId& id) {
    const PthValue& meta = id.view_metadata;
    if (!meta.is_sequence() || meta.items().size() != 3)
      throw input_error("storage view metadata is not a triple");
    const int64_t offset = meta.items()[1].as_int();
    const int64_t size = meta.items()[2].as_int();
    const int64_t total = root.as_tensor().numel();
    if (offset < 0 || size < 0 || offset > total || size > total - offset) {
      throw input_error("storage view of " + id.key + " lies outside it");
    }
    return PthValue::storage(root.as_tensor().narrow(0, offset, size));
  }

  uint64_t budget_;
  std::map<std::string, PthValue> storages_;
  std::set<std::string> filled_;
};

}  // namespace

PthValue parse_legacy_pth(std::string_view bytes) {
  if (bytes.substr(0, kMagic.size()) != kMagic)
    throw input_error("not a legacy torch.save file (bad magic number)");
  size_t position = kMagic.size();
  size_t used = 0;
  const PthValue protocol = unpickle(bytes.substr(position), no_persistent_ids, &used);
  position += used;
  if (protocol.kind() != PthValue::Kind::kInt || protocol.as_int() != kProtocolVersion) {
    throw input_error("unsupported legacy protocol version (expected 1001)");
  }
  const PthValue system_info = unpickle(bytes.substr(position), no_persistent_ids, &used);
  position += used;
  if (system_info.is_dict()) {
    const PthValue* little_endian = system_info.find("little_endian");
    if (little_endian != nullptr && little_endian->kind() == PthValue::Kind::kBool &&
        !little_endian->as_bool()) {
      throw input_error("file was written on a big-endian machine; not supported");
    }
  }
  LegacyStorages storages(bytes.size());
  const PthValue value = unpickle(
      bytes.substr(position), [&](const PthValue& id) { return storages.load(id); }, &used);
  position += used;
  const PthValue keys = unpickle(bytes.substr(position), no_persistent_ids, &used);
  position += used;
  if (keys.kind() != PthValue::Kind::kList) throw input_error("storage key list is missing");
  ByteReader reader(bytes, "legacy storage records");
  reader.seek(position);
  for (const PthValue& key : keys.items()) storages.fill(reader, key.as_string());
  storages.check_all_filled();
  return value;
}

}  // namespace olv2
