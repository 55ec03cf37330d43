#include "olv2/util/pth/pickle_writer.h"

#include <ATen/ATen.h>

#include <cstring>
#include <map>

#include "olv2/util/error.h"
#include "olv2/util/pth/torch_storage_types.h"

namespace olv2 {

namespace {

constexpr int kMaxWriteDepth = 256;

class PickleWriter {
 public:
  explicit PickleWriter(std::vector<PickledStorage>& storages) : storages_(storages) {}

  std::string run(const PthValue& value) {
    out_ += "\x80\x02";
    write(value, 0);
    out_ += '.';
    return std::move(out_);
  }

 private:
  void op(char opcode) { out_ += opcode; }

  void raw_le(uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out_ += static_cast<char>((value >> (8 * i)) & 0xFF);
  }

  void write_int(int64_t value) {
    if (value >= 0 && value < 256) {
      op('K');
      raw_le(static_cast<uint64_t>(value), 1);
    } else if (value >= 0 && value < 65536) {
      op('M');
      raw_le(static_cast<uint64_t>(value), 2);
    } else if (value >= INT32_MIN && value <= INT32_MAX) {
      op('J');
      raw_le(static_cast<uint32_t>(static_cast<int32_t>(value)), 4);
    } else {
      op('\x8a');  // LONG1, 8 bytes of two's complement
      out_ += '\x08';
      raw_le(static_cast<uint64_t>(value), 8);
    }
  }

  void write_float(double value) {
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(bits));
    op('G');
    for (int i = 7; i >= 0; --i) out_ += static_cast<char>((bits >> (8 * i)) & 0xFF);
  }

  void write_string(const std::string& text) {
    op('X');
    raw_le(text.size(), 4);
    out_ += text;
  }

  void write_global(const char* module, const char* name) {
    op('c');
    out_ += module;
    out_ += '\n';
    out_ += name;
    out_ += '\n';
  }

  // Protocol 2 has no bytes opcode; Python writes _codecs.encode(latin-1 text, 'latin1'), and
  // b'' as __builtin__.bytes(), which torch.load's weights_only unpickler (the default from
  // torch 2.6 on) refuses: empty bytes are encoded too.
  void write_bytes(const std::string& bytes) {
    std::string latin1;
    for (const char c : bytes) {
      const auto byte = static_cast<uint8_t>(c);
      if (byte < 0x80) {
        latin1 += c;
      } else {
        latin1 += static_cast<char>(0xC0 | (byte >> 6));
        latin1 += static_cast<char>(0x80 | (byte & 0x3F));
      }
    }
    write_global("_codecs", "encode");
    write_string(latin1);
    write_string("latin1");
    op('\x86');
    op('R');
  }

  void write_sequence(const std::vector<PthValue>& items, bool tuple, int depth) {
    if (tuple && items.empty()) {
      op(')');
      return;
    }
    if (!tuple) op(']');
    if (items.empty()) return;
    op('(');
    for (const PthValue& item : items) write(item, depth + 1);
    op(tuple ? 't' : 'e');
  }

  void write_dict(const PthValue& dict, int depth) {
    if (dict.is_ordered_dict()) {
      write_global("collections", "OrderedDict");
      op(')');
      op('R');
    } else {
      op('}');
    }
    if (dict.dict_items().empty()) return;
    op('(');
    for (const auto& [key, item] : dict.dict_items()) {
      if (key.is_int()) {
        write_int(key.as_int());
      } else {
        write_string(key.as_string());
      }
      write(item, depth + 1);
    }
    op('u');
  }

  std::string storage_key(const at::Tensor& tensor) {
    const void* identity = tensor.storage().unsafeGetStorageImpl();
    auto it = keys_.find(identity);
    if (it != keys_.end()) {
      if (dtypes_.at(identity) != tensor.scalar_type()) {
        throw runtime_error(
            "two tensors of different dtypes share one storage; torch.save cannot express it");
      }
      return it->second;
    }
    const std::string key = std::to_string(keys_.size());
    const c10::Storage& storage = tensor.storage();
    const auto nbytes = static_cast<int64_t>(storage.nbytes());
    at::Tensor bytes =
        nbytes == 0
            ? at::empty({0}, at::kByte)
            : at::from_blob(const_cast<void*>(static_cast<const void*>(storage.data())), {nbytes},
                            at::TensorOptions().dtype(at::kByte).device(tensor.device()));
    if (!bytes.device().is_cpu()) bytes = bytes.to(at::kCPU);
    storages_.push_back({key, bytes});
    keys_.emplace(identity, key);
    dtypes_.emplace(identity, tensor.scalar_type());
    return key;
  }

  void write_int_tuple(c10::IntArrayRef values) {
    op('(');
    for (const int64_t v : values) write_int(v);
    op('t');
  }

  void write_tensor(const at::Tensor& tensor) {
    if (!tensor.defined()) throw runtime_error("cannot write an undefined tensor");
    if (tensor.layout() != at::kStrided || tensor.is_quantized()) {
      throw runtime_error("only dense tensors can be written to a .pth file");
    }
    const std::string type_name = storage_type_of_dtype(tensor.scalar_type());
    const std::string key = storage_key(tensor);
    const int64_t numel = static_cast<int64_t>(tensor.storage().nbytes() / tensor.element_size());
    write_global("torch._utils", "_rebuild_tensor_v2");
    op('(');
    op('(');
    write_string("storage");
    write_global("torch", type_name.substr(6).c_str());
    write_string(key);
    write_string("cpu");
    write_int(numel);
    op('t');
    op('Q');
    write_int(tensor.storage_offset());
    write_int_tuple(tensor.sizes());
    write_int_tuple(tensor.strides());
    op(tensor.requires_grad() ? '\x88' : '\x89');
    write_global("collections", "OrderedDict");
    op(')');
    op('R');
    op('t');
    op('R');
  }

  void write(const PthValue& value, int depth) {
    if (depth > kMaxWriteDepth)
      throw runtime_error("value nests deeper than " + std::to_string(kMaxWriteDepth) +
                          " levels (cyclic?)");
    switch (value.kind()) {
      case PthValue::Kind::kNone:
        op('N');
        break;
      case PthValue::Kind::kBool:
        op(value.as_bool() ? '\x88' : '\x89');
        break;
      case PthValue::Kind::kInt:
        write_int(value.as_int());
        break;
      case PthValue::Kind::kFloat:
        write_float(value.as_float());
        break;
      case PthValue::Kind::kString:
        write_string(value.as_string());
        break;
      case PthValue::Kind::kBytes:
        write_bytes(value.as_bytes());
        break;
      case PthValue::Kind::kList:
        write_sequence(value.items(), false, depth);
        break;
      case PthValue::Kind::kTuple:
        write_sequence(value.items(), true, depth);
        break;
      case PthValue::Kind::kDict:
        write_dict(value, depth);
        break;
      case PthValue::Kind::kTensor:
        write_tensor(value.as_tensor());
        break;
      case PthValue::Kind::kStorage:
        throw runtime_error("cannot write a bare storage; write a tensor instead");
      case PthValue::Kind::kOpaque:
        throw runtime_error("cannot write the undecoded Python object " +
                            value.as_opaque().type_name);
    }
  }

  std::vector<PickledStorage>& storages_;
  std::map<const void*, std::string> keys_;
  std::map<const void*, c10::ScalarType> dtypes_;
  std::string out_;
};

}  // namespace

std::string pickle_for_pth(const PthValue& value, std::vector<PickledStorage>& storages) {
  return PickleWriter(storages).run(value);
}

}  // namespace olv2
