#include "olv2/util/pth/pth_print.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace olv2 {

namespace {

constexpr size_t kMaxStringShown = 80;
constexpr int64_t kValuesShown = 6;

std::string quoted(const std::string& text, bool bytes) {
  std::ostringstream out;
  out << (bytes ? "b\"" : "\"");
  for (size_t i = 0; i < std::min(text.size(), kMaxStringShown); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out << "\\n";
    } else if (c == '"' || c == '\\') {
      out << '\\' << c;
    } else if (c < 0x20 || (bytes && c >= 0x7F)) {
      out << "\\x" << std::hex << std::setw(2) << std::setfill('0') << static_cast<int>(c)
          << std::dec;
    } else {
      out << c;
    }
  }
  out << '"';
  if (text.size() > kMaxStringShown)
    out << " ... (" << text.size() << (bytes ? " bytes)" : " chars)");
  return out.str();
}

// The shortest decimal form that reads back as the same double, as Python prints floats.
std::string shortest(double value) {
  for (int digits = 1; digits < 17; ++digits) {
    std::ostringstream text;
    text << std::setprecision(digits) << value;
    if (std::stod(text.str()) == value) return text.str();
  }
  std::ostringstream text;
  text << std::setprecision(17) << value;
  return text.str();
}

std::string counted(size_t count, const char* noun) {
  return "(" + std::to_string(count) + " " + noun + (count == 1 ? ")" : "s)");
}

std::string tensor_values(const at::Tensor& tensor) {
  if (tensor.numel() == 0) return "empty";
  const at::Tensor values = tensor.detach().to(at::kCPU).to(at::kDouble).reshape(-1);
  std::ostringstream out;
  out << std::setprecision(6) << "min " << values.min().item<double>() << ", max "
      << values.max().item<double>() << ", mean " << values.mean().item<double>() << ", first [";
  const int64_t shown = std::min<int64_t>(values.numel(), kValuesShown);
  for (int64_t i = 0; i < shown; ++i) out << (i > 0 ? ", " : "") << values[i].item<double>();
  out << (values.numel() > shown ? ", ...]" : "]");
  return out.str();
}

class TreePrinter {
 public:
  TreePrinter(std::ostream& out, const PthPrintOptions& options) : out_(out), options_(options) {}

  void print(const std::string& label, const PthValue& value, int depth) {
    const std::string indent(static_cast<size_t>(depth) * 2, ' ');
    out_ << indent << label << describe(value) << '\n';
    if (value.is_tensor() && options_.tensor_values) {
      out_ << indent << "  " << tensor_values(value.as_tensor()) << '\n';
    }
    if (value.is_dict()) {
      for (const auto& [key, item] : value.dict_items()) {
        print(key.to_string() + ": ", item, depth + 1);
      }
    } else if (value.is_sequence()) {
      const auto& items = value.items();
      const size_t shown = std::min(items.size(), options_.max_items);
      for (size_t i = 0; i < shown; ++i)
        print("[" + std::to_string(i) + "]: ", items[i], depth + 1);
      if (items.size() > shown) out_ << indent << "  ... (" << items.size() - shown << " more)\n";
    }
  }

 private:
  static std::string describe(const PthValue& value) {
    std::ostringstream text;
    switch (value.kind()) {
      case PthValue::Kind::kNone:
        return "None";
      case PthValue::Kind::kBool:
        return value.as_bool() ? "True" : "False";
      case PthValue::Kind::kInt:
        return std::to_string(value.as_int());
      case PthValue::Kind::kFloat:
        text << shortest(value.as_float());
        return text.str();
      case PthValue::Kind::kString:
        return quoted(value.as_string(), false);
      case PthValue::Kind::kBytes:
        return quoted(value.as_bytes(), true);
      case PthValue::Kind::kList:
        return "list " + counted(value.items().size(), "item");
      case PthValue::Kind::kTuple:
        return "tuple " + counted(value.items().size(), "item");
      case PthValue::Kind::kDict:
        return std::string(value.is_ordered_dict() ? "OrderedDict" : "dict") + " (" +
               std::to_string(value.dict_items().size()) + " entries)";
      case PthValue::Kind::kTensor:
        return "tensor " + describe_tensor(value.as_tensor());
      case PthValue::Kind::kStorage:
        return "storage " + describe_tensor(value.as_tensor());
      case PthValue::Kind::kOpaque:
        return "<" + value.as_opaque().type_name + ">  (not decoded: " + value.as_opaque().note +
               ")";
    }
    return "?";
  }

  std::ostream& out_;
  const PthPrintOptions& options_;
};

}  // namespace

std::string dtype_name(c10::ScalarType dtype) {
  switch (dtype) {
    case c10::ScalarType::Float:
      return "float32";
    case c10::ScalarType::Double:
      return "float64";
    case c10::ScalarType::Half:
      return "float16";
    case c10::ScalarType::BFloat16:
      return "bfloat16";
    case c10::ScalarType::Long:
      return "int64";
    case c10::ScalarType::Int:
      return "int32";
    case c10::ScalarType::Short:
      return "int16";
    case c10::ScalarType::Char:
      return "int8";
    case c10::ScalarType::Byte:
      return "uint8";
    case c10::ScalarType::Bool:
      return "bool";
    default:
      return c10::toString(dtype);
  }
}

std::string describe_tensor(const at::Tensor& tensor) {
  std::string text = dtype_name(tensor.scalar_type()) + " " + c10::str(tensor.sizes());
  if (!tensor.is_contiguous() || tensor.storage_offset() != 0) {
    text += " (view: offset " + std::to_string(tensor.storage_offset()) + ", stride " +
            c10::str(tensor.strides()) + ")";
  }
  return text;
}

void print_pth_tree(std::ostream& out, const PthValue& value, const PthPrintOptions& options) {
  TreePrinter(out, options).print("", value, 0);
}

}  // namespace olv2
