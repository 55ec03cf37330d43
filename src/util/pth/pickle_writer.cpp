#include "olv2/util/pth/pickle_writer.h"

#include <ATen/ATen.h>

#include <map>

#include "olv2/util/error.h"
#include "olv2/util/pth/pickle_emitter.h"
#include "olv2/util/pth/torch_storage_types.h"

namespace olv2 {

namespace {

constexpr int kMaxWriteDepth = 256;

class PickleWriter {
 public:
  explicit PickleWriter(std::vector<PickledStorage>& storages) : storages_(storages) {}

  std::string run(const PthValue& value) {
    write(value, 0);
    out_.stop();
    return out_.take();
  }

 private:
  using P = PickleEmitter;

  void write_sequence(const std::vector<PthValue>& items, bool tuple, int depth) {
    if (tuple && items.empty()) {
      out_.op(P::kEmptyTuple);
      return;
    }
    if (!tuple) out_.op(P::kEmptyList);
    if (items.empty()) return;
    out_.op(P::kMark);
    for (const PthValue& item : items) write(item, depth + 1);
    out_.op(tuple ? P::kTuple : P::kAppends);
  }

  void write_dict(const PthValue& dict, int depth) {
    if (dict.is_ordered_dict()) {
      out_.global("collections", "OrderedDict");
      out_.op(P::kEmptyTuple);
      out_.op(P::kReduce);
    } else {
      out_.op(P::kEmptyDict);
    }
    if (dict.dict_items().empty()) return;
    out_.op(P::kMark);
    for (const auto& [key, item] : dict.dict_items()) {
      if (key.is_int()) {
        out_.integer(key.as_int());
      } else if (key.is_tuple()) {
        write_sequence(to_values(key.tuple_items()), true, depth);
      } else {
        out_.string(key.as_string());
      }
      write(item, depth + 1);
    }
    out_.op(P::kSetItems);
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

  static std::vector<PthValue> to_values(const std::vector<std::string>& texts) {
    std::vector<PthValue> values;
    for (const std::string& text : texts) values.push_back(PthValue::from_string(text));
    return values;
  }

  void write_int_tuple(c10::IntArrayRef values) {
    out_.op(P::kMark);
    for (const int64_t v : values) out_.integer(v);
    out_.op(P::kTuple);
  }

  void write_tensor(const at::Tensor& tensor) {
    if (!tensor.defined()) throw runtime_error("cannot write an undefined tensor");
    if (tensor.layout() != at::kStrided || tensor.is_quantized()) {
      throw runtime_error("only dense tensors can be written to a .pth file");
    }
    const std::string type_name = storage_type_of_dtype(tensor.scalar_type());
    const std::string key = storage_key(tensor);
    const int64_t numel = static_cast<int64_t>(tensor.storage().nbytes() / tensor.element_size());
    out_.global("torch._utils", "_rebuild_tensor_v2");
    out_.op(P::kMark);
    out_.op(P::kMark);
    out_.string("storage");
    out_.global("torch", type_name.substr(6));
    out_.string(key);
    out_.string("cpu");
    out_.integer(numel);
    out_.op(P::kTuple);
    out_.op(P::kBinPersId);
    out_.integer(tensor.storage_offset());
    write_int_tuple(tensor.sizes());
    write_int_tuple(tensor.strides());
    out_.boolean(tensor.requires_grad());
    out_.global("collections", "OrderedDict");
    out_.op(P::kEmptyTuple);
    out_.op(P::kReduce);
    out_.op(P::kTuple);
    out_.op(P::kReduce);
  }

  void write(const PthValue& value, int depth) {
    if (depth > kMaxWriteDepth)
      throw runtime_error("value nests deeper than " + std::to_string(kMaxWriteDepth) +
                          " levels (cyclic?)");
    switch (value.kind()) {
      case PthValue::Kind::kNone:
        out_.op(P::kNone);
        break;
      case PthValue::Kind::kBool:
        out_.boolean(value.as_bool());
        break;
      case PthValue::Kind::kInt:
        out_.integer(value.as_int());
        break;
      case PthValue::Kind::kFloat:
        out_.float64(value.as_float());
        break;
      case PthValue::Kind::kString:
        out_.string(value.as_string());
        break;
      case PthValue::Kind::kBytes:
        out_.bytes(value.as_bytes());
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
  PickleEmitter out_{2};  // torch.save's protocol
};

}  // namespace

std::string pickle_for_pth(const PthValue& value, std::vector<PickledStorage>& storages) {
  return PickleWriter(storages).run(value);
}

}  // namespace olv2
