#include "olv2/util/pth/pickle_globals.h"

#include <ATen/ATen.h>

#include <functional>
#include <limits>
#include <map>
#include <vector>

#include "olv2/util/error.h"
#include "olv2/util/pth/numpy_values.h"

namespace olv2 {

namespace {

constexpr size_t kMaxTensorDims = 64;
// A view may address more elements than its storage holds only through zero strides (an
// expanded tensor); beyond this count such a view is refused, so a corrupt size cannot make
// later reads of the tensor allocate gigabytes.
constexpr int64_t kMaxExpandedElements = int64_t{1} << 24;

using Handler = std::function<PthValue(const std::vector<PthValue>& args)>;

const PthValue& arg(const std::vector<PthValue>& args, size_t index, const char* function) {
  if (index >= args.size()) {
    throw input_error(std::string(function) + " called with " + std::to_string(args.size()) +
                      " arguments, expected at least " + std::to_string(index + 1));
  }
  return args[index];
}

std::vector<int64_t> int_sequence(const PthValue& value, const char* what) {
  if (!value.is_sequence())
    throw input_error(std::string(what) + ": expected a tuple of ints, found " + value.kind_name());
  if (value.items().size() > kMaxTensorDims)
    throw input_error(std::string(what) + ": too many dimensions");
  std::vector<int64_t> numbers;
  for (const PthValue& item : value.items()) numbers.push_back(item.as_int());
  return numbers;
}

// A view of `storage` (a 1-D tensor over the whole storage), after checking that every element
// it addresses lies inside the storage.
at::Tensor view_of_storage(const PthValue& storage, int64_t offset,
                           const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  if (storage.kind() != PthValue::Kind::kStorage) {
    throw input_error(std::string("tensor rebuild expects a storage, found ") +
                      storage.kind_name());
  }
  const at::Tensor& base = storage.as_tensor();
  if (sizes.size() != strides.size())
    throw input_error("tensor size and stride have different lengths");
  if (offset < 0) throw input_error("negative storage offset");
  int64_t last = 0;
  int64_t numel = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0 || strides[d] < 0) throw input_error("negative tensor size or stride");
    int64_t reach = 0;
    if (sizes[d] > 0 && (__builtin_mul_overflow(sizes[d] - 1, strides[d], &reach) ||
                         __builtin_add_overflow(last, reach, &last))) {
      throw input_error("tensor extent overflows");
    }
    if (__builtin_mul_overflow(numel, sizes[d], &numel))
      throw input_error("tensor element count overflows");
  }
  const int64_t available = base.numel();
  if (numel > 0 && (offset >= available || last >= available - offset)) {
    throw input_error("tensor of size " + c10::str(c10::IntArrayRef(sizes)) + " at offset " +
                      std::to_string(offset) + " reaches past its storage of " +
                      std::to_string(available) + " elements");
  }
  if (numel == 0 && offset > available)
    throw input_error("storage offset past the end of its storage");
  if (numel > available && numel > kMaxExpandedElements) {
    throw input_error("tensor of " + std::to_string(numel) + " elements over a storage of " +
                      std::to_string(available) + ": expanded views that large are refused");
  }
  return at::empty({0}, base.options())
      .set_(base.storage(), base.storage_offset() + offset, sizes, strides);
}

PthValue rebuild_tensor(const std::vector<PthValue>& args) {
  const char* name = "torch._utils._rebuild_tensor";
  const at::Tensor view = view_of_storage(arg(args, 0, name), arg(args, 1, name).as_int(),
                                          int_sequence(arg(args, 2, name), "tensor size"),
                                          int_sequence(arg(args, 3, name), "tensor stride"));
  return PthValue::tensor(view);
}

PthValue rebuild_parameter(const std::vector<PthValue>& args) {
  const PthValue& data = arg(args, 0, "torch._utils._rebuild_parameter");
  if (!data.is_tensor())
    throw input_error(std::string("parameter data is a ") + data.kind_name() + ", expected tensor");
  return data;
}

PthValue ordered_dict(const std::vector<PthValue>& args) {
  PthValue dict = PthValue::dict({}, true);
  if (!args.empty()) {
    for (const PthValue& pair : args[0].items()) {
      if (!pair.is_sequence() || pair.items().size() != 2)
        throw input_error("OrderedDict item is not a pair");
      const PthValue& key = pair.items()[0];
      dict.set(
          key.kind() == PthValue::Kind::kString ? PthKey(key.as_string()) : PthKey(key.as_int()),
          pair.items()[1]);
    }
  }
  return dict;
}

// Protocol 2 stores bytes as `_codecs.encode(text, "latin1")`: each code point is one byte.
PthValue codecs_encode(const std::vector<PthValue>& args) {
  const std::string& text = arg(args, 0, "_codecs.encode").as_string();
  const std::string encoding = args.size() > 1 ? args[1].as_string() : "utf-8";
  if (encoding == "utf-8" || encoding == "utf8") return PthValue::from_bytes(text);
  if (encoding != "latin1" && encoding != "latin-1")
    throw input_error("_codecs.encode with encoding " + encoding);
  std::string bytes;
  bytes.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto lead = static_cast<uint8_t>(text[i]);
    if (lead < 0x80) {
      bytes.push_back(static_cast<char>(lead));
    } else if ((lead & 0xE0U) == 0xC0U && lead <= 0xC3 && i + 1 < text.size()) {
      bytes.push_back(
          static_cast<char>(((lead & 0x03U) << 6) | (static_cast<uint8_t>(text[++i]) & 0x3FU)));
    } else {
      throw input_error("_codecs.encode: text is not latin-1");
    }
  }
  return PthValue::from_bytes(std::move(bytes));
}

PthValue python_bytes(const std::vector<PthValue>& args) {
  if (args.empty()) return PthValue::from_bytes("");
  if (args[0].kind() == PthValue::Kind::kBytes) return args[0];
  std::string bytes;
  for (const PthValue& item : args[0].items()) {
    const int64_t value = item.as_int();
    if (value < 0 || value > 255) throw input_error("bytes value out of range");
    bytes.push_back(static_cast<char>(value));
  }
  return PthValue::from_bytes(std::move(bytes));
}

PthValue python_set(const std::vector<PthValue>& args) {
  return PthValue::list(args.empty() ? std::vector<PthValue>{} : args[0].items());
}

PthValue torch_size(const std::vector<PthValue>& args) {
  return PthValue::tuple(args.empty() ? std::vector<PthValue>{} : args[0].items());
}

PthValue rebuild_from_type(const std::vector<PthValue>& args) {
  const char* name = "torch._tensor._rebuild_from_type_v2";
  const PthValue& function = arg(args, 0, name);
  if (function.kind() == PthValue::Kind::kOpaque && function.as_opaque().type_name == name) {
    throw input_error("nested _rebuild_from_type_v2");  // keeps recursion bounded
  }
  return call_pickled_global(function, arg(args, 2, name));
}

const std::map<std::string, Handler>& handlers() {
  static const std::map<std::string, Handler> table = [] {
    std::map<std::string, Handler> t;
    t["torch._utils._rebuild_tensor_v2"] = rebuild_tensor;
    t["torch._utils._rebuild_tensor"] = rebuild_tensor;
    t["torch._utils._rebuild_parameter"] = rebuild_parameter;
    t["torch._utils._rebuild_parameter_with_state"] = rebuild_parameter;
    t["torch._tensor._rebuild_from_type_v2"] = rebuild_from_type;
    t["torch.Size"] = torch_size;
    t["collections.OrderedDict"] = ordered_dict;
    t["_codecs.encode"] = codecs_encode;
    for (const char* module : {"builtins", "__builtin__"}) {
      t[std::string(module) + ".bytes"] = python_bytes;
      t[std::string(module) + ".bytearray"] = python_bytes;
      t[std::string(module) + ".set"] = python_set;
      t[std::string(module) + ".frozenset"] = python_set;
    }
    t["numpy.dtype"] = [](const std::vector<PthValue>& a) {
      return numpy_dtype(PthValue::tuple(a));
    };
    for (const char* module : {"numpy.core.multiarray", "numpy._core.multiarray"}) {
      t[std::string(module) + ".scalar"] = [](const std::vector<PthValue>& a) {
        return numpy_scalar(PthValue::tuple(a));
      };
      t[std::string(module) + "._reconstruct"] = [](const std::vector<PthValue>&) {
        return numpy_array_placeholder();
      };
    }
    return t;
  }();
  return table;
}

}  // namespace

PthValue call_pickled_global(const PthValue& callable, const PthValue& args) {
  if (callable.kind() != PthValue::Kind::kOpaque) {
    throw input_error(std::string("call of a ") + callable.kind_name() + ", which is not callable");
  }
  const PthOpaque& target = callable.as_opaque();
  if (!target.is_global) {
    return PthValue::opaque(
        {target.type_name, "result of calling an undecoded " + target.type_name, false});
  }
  const auto& table = handlers();
  auto it = table.find(target.type_name);
  if (it == table.end()) {
    return PthValue::opaque(
        {target.type_name, "instance of a type the reader does not decode", false});
  }
  return it->second(args.items());
}

void build_pickled_object(PthValue& object, const PthValue& state) {
  switch (object.kind()) {
    case PthValue::Kind::kOpaque:
      if (object.as_opaque().type_name == "numpy.dtype") {
        numpy_dtype_set_state(object, state);
      } else if (is_numpy_array_placeholder(object)) {
        numpy_array_set_state(object, state);
      }
      return;
    case PthValue::Kind::kDict:    // OrderedDict attributes (state_dict()._metadata): not data
    case PthValue::Kind::kTensor:  // hooks and Python attributes of a tensor
    case PthValue::Kind::kList:
      return;
    default:
      throw input_error(std::string("BUILD on a ") + object.kind_name());
  }
}

}  // namespace olv2
