#include "olv2/util/pth/numpy_values.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "olv2/util/error.h"
#include "olv2/util/pth/pickle_emitter.h"

namespace olv2 {

namespace {

constexpr const char* kArrayType = "numpy.ndarray";
constexpr const char* kArrayPending = "awaiting its state (BUILD)";
constexpr size_t kMaxDims = 64;

struct NumpyType {
  char kind;      // 'f', 'i', 'u', 'b'
  int item_size;  // bytes
  bool big_endian;
};

// Parses a dtype note such as "<f8", "|b1" or "f4" (no order yet: native, little endian here);
// nullopt for types other than bool, int, uint and float.
std::optional<NumpyType> parse_dtype(const PthValue& dtype) {
  if (dtype.kind() != PthValue::Kind::kOpaque || dtype.as_opaque().type_name != "numpy.dtype") {
    throw input_error(std::string("expected a numpy.dtype, found ") + dtype.kind_name());
  }
  std::string code = dtype.as_opaque().note;
  bool big_endian = false;
  if (!code.empty() && (code[0] == '<' || code[0] == '>' || code[0] == '|' || code[0] == '=')) {
    big_endian = code[0] == '>';
    code.erase(0, 1);
  }
  if (code.size() != 2 || std::string("fiub").find(code[0]) == std::string::npos || code[1] < '1' ||
      code[1] > '8') {
    return std::nullopt;
  }
  return NumpyType{code[0], code[1] - '0', big_endian};
}

// numpy type codes and the torch dtypes they map to, both ways.
struct DtypeCode {
  const char* code;
  c10::ScalarType type;
};
constexpr DtypeCode kDtypeCodes[] = {
    {"f2", c10::ScalarType::Half}, {"f4", c10::ScalarType::Float}, {"f8", c10::ScalarType::Double},
    {"i1", c10::ScalarType::Char}, {"i2", c10::ScalarType::Short}, {"i4", c10::ScalarType::Int},
    {"i8", c10::ScalarType::Long}, {"u1", c10::ScalarType::Byte},  {"b1", c10::ScalarType::Bool}};

std::optional<c10::ScalarType> torch_dtype(const NumpyType& type) {
  const std::string code = std::string(1, type.kind) + std::to_string(type.item_size);
  for (const DtypeCode& entry : kDtypeCodes) {
    if (code == entry.code) return entry.type;
  }
  return std::nullopt;
}

std::string numpy_code(c10::ScalarType type) {
  for (const DtypeCode& entry : kDtypeCodes) {
    if (type == entry.type) return entry.code;
  }
  throw runtime_error(std::string("numpy has no dtype for torch's ") + c10::toString(type));
}

// `numpy.dtype(code, False, True)` with its state, as numpy pickles one; once per pickle.
void emit_dtype(PickleEmitter& out, c10::ScalarType type) {
  const std::string code = numpy_code(type);
  out.memoized("numpy.dtype " + code, [&] {
    out.memoized("global numpy dtype", [&] { out.global("numpy", "dtype"); });
    out.string(code);
    out.boolean(false);
    out.boolean(true);
    out.op(PickleEmitter::kTuple3);
    out.op(PickleEmitter::kReduce);
    out.op(PickleEmitter::kMark);
    out.integer(3);
    out.string(c10::elementSize(type) == 1 ? "|" : "<");  // this writer runs little endian
    out.op(PickleEmitter::kNone);
    out.op(PickleEmitter::kNone);
    out.op(PickleEmitter::kNone);
    out.integer(-1);
    out.integer(-1);
    out.integer(0);
    out.op(PickleEmitter::kTuple);
    out.op(PickleEmitter::kBuild);
  });
}

std::string raw_bytes(const at::Tensor& values) {
  const at::Tensor contiguous = values.cpu().contiguous();
  return std::string(static_cast<const char*>(contiguous.data_ptr()),
                     static_cast<size_t>(contiguous.nbytes()));
}

// Copies `raw` into host (little-endian) order.
std::string host_order(std::string raw, const NumpyType& type) {
  if (type.big_endian) {
    for (size_t i = 0; i + static_cast<size_t>(type.item_size) <= raw.size();
         i += static_cast<size_t>(type.item_size)) {
      std::reverse(raw.begin() + static_cast<std::ptrdiff_t>(i),
                   raw.begin() + static_cast<std::ptrdiff_t>(i) + type.item_size);
    }
  }
  return raw;
}

PthValue scalar_value(const std::string& bytes, const NumpyType& type) {
  if (type.kind == 'b') return PthValue::from_bool(bytes[0] != 0);
  if (type.kind == 'f') {
    const std::optional<c10::ScalarType> dtype = torch_dtype(type);
    if (!dtype)
      return PthValue::opaque(
          {"numpy scalar", "float of " + std::to_string(type.item_size) + " bytes", false});
    const at::Tensor value = at::empty({1}, at::TensorOptions().dtype(*dtype));
    std::memcpy(value.data_ptr(), bytes.data(), bytes.size());
    return PthValue::from_float(value.to(at::kDouble).item<double>());
  }
  uint64_t bits = 0;
  for (size_t i = bytes.size(); i-- > 0;) bits = (bits << 8) | static_cast<uint8_t>(bytes[i]);
  const int shift = 64 - 8 * type.item_size;
  if (type.kind == 'i') return PthValue::from_int(static_cast<int64_t>(bits << shift) >> shift);
  if (bits > static_cast<uint64_t>(INT64_MAX))
    return PthValue::opaque({"numpy.uint64", "value above 2^63", false});
  return PthValue::from_int(static_cast<int64_t>(bits));
}

}  // namespace

PthValue numpy_dtype(const PthValue& args) {
  if (args.items().empty()) throw input_error("numpy.dtype called without a type code");
  const PthValue& code = args.items()[0];
  return PthValue::opaque(
      {"numpy.dtype", code.kind() == PthValue::Kind::kString ? code.as_string() : "?", false});
}

void numpy_dtype_set_state(PthValue& dtype, const PthValue& state) {
  if (!state.is_sequence() || state.items().size() < 2 ||
      state.items()[1].kind() != PthValue::Kind::kString) {
    return;  // a state without a byte order keeps the type as it is
  }
  PthOpaque updated = dtype.as_opaque();
  const std::string& order = state.items()[1].as_string();
  if (order.size() == 1 &&
      (updated.note.empty() || std::string("<>|=").find(updated.note[0]) == std::string::npos)) {
    updated.note = order + updated.note;
  }
  dtype.assign(PthValue::opaque(updated));
}

PthValue numpy_scalar(const PthValue& args) {
  if (args.items().size() != 2) throw input_error("numpy scalar expects (dtype, bytes)");
  const std::optional<NumpyType> parsed = parse_dtype(args.items()[0]);
  if (!parsed)
    return PthValue::opaque(
        {"numpy scalar", "dtype " + args.items()[0].as_opaque().note + " not decoded", false});
  const NumpyType type = *parsed;
  const std::string& raw = args.items()[1].as_bytes();
  if (raw.size() != static_cast<size_t>(type.item_size)) {
    throw input_error("numpy scalar holds " + std::to_string(raw.size()) +
                      " bytes, its dtype needs " + std::to_string(type.item_size));
  }
  return scalar_value(host_order(raw, type), type);
}

PthValue numpy_array_placeholder() { return PthValue::opaque({kArrayType, kArrayPending, false}); }

bool is_numpy_array_placeholder(const PthValue& value) {
  return value.kind() == PthValue::Kind::kOpaque && value.as_opaque().type_name == kArrayType &&
         value.as_opaque().note == kArrayPending;
}

void numpy_array_set_state(PthValue& array, const PthValue& state) {
  // state = (version, shape, dtype, is_fortran, raw data)
  if (!state.is_sequence() || state.items().size() != 5)
    throw input_error("numpy array state is not a 5-tuple");
  const auto& fields = state.items();
  const std::optional<NumpyType> parsed = parse_dtype(fields[2]);
  const std::optional<c10::ScalarType> dtype = parsed ? torch_dtype(*parsed) : std::nullopt;
  if (fields[4].kind() != PthValue::Kind::kBytes || !dtype) {
    array.assign(PthValue::opaque(
        {kArrayType, "array of numpy dtype " + fields[2].as_opaque().note + " not decoded",
         false}));
    return;
  }
  if (!fields[1].is_sequence() || fields[1].items().size() > kMaxDims)
    throw input_error("numpy array shape is not a tuple");
  std::vector<int64_t> shape;
  int64_t numel = 1;
  for (const PthValue& size : fields[1].items()) {
    shape.push_back(size.as_int());
    if (shape.back() < 0 || __builtin_mul_overflow(numel, shape.back(), &numel))
      throw input_error("bad numpy array shape");
  }
  const NumpyType type = *parsed;
  const std::string& raw = fields[4].as_bytes();
  if (numel > static_cast<int64_t>(raw.size()) ||
      static_cast<uint64_t>(numel) * type.item_size != raw.size()) {
    throw input_error("numpy array of " + std::to_string(numel) + " elements holds " +
                      std::to_string(raw.size()) + " bytes");
  }
  const bool fortran = fields[3].as_int() != 0;
  std::vector<int64_t> storage_shape(shape);
  if (fortran) std::reverse(storage_shape.begin(), storage_shape.end());
  at::Tensor tensor = at::empty(storage_shape, at::TensorOptions().dtype(*dtype));
  const std::string data = host_order(raw, type);
  if (!data.empty()) std::memcpy(tensor.data_ptr(), data.data(), data.size());
  if (fortran) {
    std::vector<int64_t> reversed(shape.size());
    for (size_t d = 0; d < shape.size(); ++d)
      reversed[d] = static_cast<int64_t>(shape.size() - 1 - d);
    tensor = tensor.permute(reversed);
  }
  array.assign(PthValue::tensor(tensor));
}

void emit_numpy_array(PickleEmitter& out, const at::Tensor& values) {
  out.memoized("global numpy.core.multiarray _reconstruct",
               [&] { out.global("numpy.core.multiarray", "_reconstruct"); });
  out.memoized("global numpy ndarray", [&] { out.global("numpy", "ndarray"); });
  out.integer(0);
  out.op(PickleEmitter::kTuple1);
  out.bytes("b");
  out.op(PickleEmitter::kTuple3);
  out.op(PickleEmitter::kReduce);
  // state: (version, shape, dtype, is_fortran, raw data)
  out.op(PickleEmitter::kMark);
  out.integer(1);
  out.op(PickleEmitter::kMark);
  for (const int64_t size : values.sizes()) out.integer(size);
  out.op(PickleEmitter::kTuple);
  emit_dtype(out, values.scalar_type());
  out.boolean(false);
  out.bytes(raw_bytes(values));
  out.op(PickleEmitter::kTuple);
  out.op(PickleEmitter::kBuild);
}

void emit_numpy_scalar(PickleEmitter& out, const at::Tensor& value) {
  if (value.numel() != 1) {
    throw runtime_error("a numpy scalar holds one element, got " + std::to_string(value.numel()));
  }
  out.memoized("global numpy.core.multiarray scalar",
               [&] { out.global("numpy.core.multiarray", "scalar"); });
  emit_dtype(out, value.scalar_type());
  out.bytes(raw_bytes(value));
  out.op(PickleEmitter::kTuple2);
  out.op(PickleEmitter::kReduce);
}

}  // namespace olv2
