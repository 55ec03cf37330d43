#include "olv2/util/pth/pth_value.h"

#include "olv2/util/error.h"

namespace olv2 {

std::string PthKey::to_string() const {
  switch (kind_) {
    case Kind::kString:
      return text_;
    case Kind::kInt:
      return std::to_string(number_);
    case Kind::kStringTuple:
      break;
  }
  std::string text = "(";
  for (std::size_t i = 0; i < items_.size(); ++i) text += (i ? ", " : "") + items_[i];
  return text + ")";
}

struct PthValue::Node {
  Kind kind = Kind::kNone;
  bool flag = false;  // bool value, or "ordered" for dicts
  int64_t integer = 0;
  double real = 0.0;
  std::string text;  // str or bytes
  std::vector<PthValue> items;
  PthDictItems dict;
  at::Tensor tensor;
  PthOpaque opaque;
};

std::shared_ptr<PthValue::Node> PthValue::make_node(Kind kind) {
  auto node = std::make_shared<Node>();
  node->kind = kind;
  return node;
}

const char* to_string(PthValue::Kind kind) {
  switch (kind) {
    case PthValue::Kind::kNone:
      return "None";
    case PthValue::Kind::kBool:
      return "bool";
    case PthValue::Kind::kInt:
      return "int";
    case PthValue::Kind::kFloat:
      return "float";
    case PthValue::Kind::kString:
      return "str";
    case PthValue::Kind::kBytes:
      return "bytes";
    case PthValue::Kind::kList:
      return "list";
    case PthValue::Kind::kTuple:
      return "tuple";
    case PthValue::Kind::kDict:
      return "dict";
    case PthValue::Kind::kTensor:
      return "tensor";
    case PthValue::Kind::kStorage:
      return "storage";
    case PthValue::Kind::kOpaque:
      return "opaque object";
  }
  return "?";
}

PthValue::PthValue() : node_(make_node(Kind::kNone)) {}
PthValue::PthValue(std::shared_ptr<Node> node) : node_(std::move(node)) {}

PthValue PthValue::from_bool(bool value) {
  auto node = make_node(Kind::kBool);
  node->flag = value;
  return PthValue(node);
}

PthValue PthValue::from_int(int64_t value) {
  auto node = make_node(Kind::kInt);
  node->integer = value;
  return PthValue(node);
}

PthValue PthValue::from_float(double value) {
  auto node = make_node(Kind::kFloat);
  node->real = value;
  return PthValue(node);
}

PthValue PthValue::from_string(std::string value) {
  auto node = make_node(Kind::kString);
  node->text = std::move(value);
  return PthValue(node);
}

PthValue PthValue::from_bytes(std::string value) {
  auto node = make_node(Kind::kBytes);
  node->text = std::move(value);
  return PthValue(node);
}

PthValue PthValue::list(std::vector<PthValue> items) {
  auto node = make_node(Kind::kList);
  node->items = std::move(items);
  return PthValue(node);
}

PthValue PthValue::tuple(std::vector<PthValue> items) {
  auto node = make_node(Kind::kTuple);
  node->items = std::move(items);
  return PthValue(node);
}

PthValue PthValue::dict(PthDictItems items, bool ordered) {
  auto node = make_node(Kind::kDict);
  node->dict = std::move(items);
  node->flag = ordered;
  return PthValue(node);
}

PthValue PthValue::tensor(at::Tensor value) {
  auto node = make_node(Kind::kTensor);
  node->tensor = std::move(value);
  return PthValue(node);
}

PthValue PthValue::storage(at::Tensor value) {
  auto node = make_node(Kind::kStorage);
  node->tensor = std::move(value);
  return PthValue(node);
}

PthValue PthValue::opaque(PthOpaque value) {
  auto node = make_node(Kind::kOpaque);
  node->opaque = std::move(value);
  return PthValue(node);
}

PthValue::Kind PthValue::kind() const { return node_->kind; }
const char* PthValue::kind_name() const { return to_string(node_->kind); }
const PthValue::Node& PthValue::node() const { return *node_; }

PthValue::Node& PthValue::checked(Kind kind, const char* expected) const {
  if (node_->kind != kind) {
    throw input_error(std::string("expected ") + expected + ", found " + kind_name());
  }
  return *node_;
}

bool PthValue::as_bool() const { return checked(Kind::kBool, "bool").flag; }

int64_t PthValue::as_int() const {
  if (node_->kind == Kind::kBool) return node_->flag ? 1 : 0;
  return checked(Kind::kInt, "int").integer;
}

double PthValue::as_float() const {
  if (node_->kind == Kind::kInt || node_->kind == Kind::kBool) return static_cast<double>(as_int());
  return checked(Kind::kFloat, "float").real;
}

const std::string& PthValue::as_string() const { return checked(Kind::kString, "str").text; }
const std::string& PthValue::as_bytes() const { return checked(Kind::kBytes, "bytes").text; }

const at::Tensor& PthValue::as_tensor() const {
  if (node_->kind == Kind::kStorage) return node_->tensor;
  return checked(Kind::kTensor, "tensor").tensor;
}

const PthOpaque& PthValue::as_opaque() const {
  return checked(Kind::kOpaque, "opaque object").opaque;
}

const std::vector<PthValue>& PthValue::items() const {
  if (node_->kind == Kind::kTuple) return node_->items;
  return checked(Kind::kList, "list or tuple").items;
}

std::vector<PthValue>& PthValue::items() {
  if (node_->kind == Kind::kTuple) return node_->items;
  return checked(Kind::kList, "list or tuple").items;
}

const PthDictItems& PthValue::dict_items() const { return checked(Kind::kDict, "dict").dict; }
PthDictItems& PthValue::dict_items() { return checked(Kind::kDict, "dict").dict; }
bool PthValue::is_ordered_dict() const { return checked(Kind::kDict, "dict").flag; }

const PthValue* PthValue::find(const PthKey& key) const {
  for (const auto& [item_key, value] : dict_items()) {
    if (item_key == key) return &value;
  }
  return nullptr;
}

const PthValue& PthValue::at(const PthKey& key) const {
  const PthValue* value = find(key);
  if (value == nullptr) throw input_error("key `" + key.to_string() + "` not found");
  return *value;
}

void PthValue::set(const PthKey& key, PthValue value) {
  PthDictItems& entries = dict_items();
  for (auto& [item_key, item_value] : entries) {
    if (item_key == key) {
      item_value = std::move(value);
      return;
    }
  }
  entries.emplace_back(key, std::move(value));
}

void PthValue::assign(const PthValue& other) {
  if (other.node_ == node_) return;
  *node_ = *other.node_;
}

}  // namespace olv2
