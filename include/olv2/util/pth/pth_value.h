#pragma once
// The Python object tree a `.pth` file or pickle holds: values, dict keys and opaque objects.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace olv2 {

class PthValue;

// A Python dict key as the pickles read here use them: a string, an int (optimizer state is
// keyed by parameter index) or a tuple of strings (the devkit keys frames by (split, segment_id,
// timestamp)).
class PthKey {
 public:
  enum class Kind { kString, kInt, kStringTuple };
  PthKey(std::string text) : kind_(Kind::kString), text_(std::move(text)) {}  // NOLINT: implicit
  PthKey(const char* text) : kind_(Kind::kString), text_(text) {}             // NOLINT: implicit
  PthKey(int64_t number) : kind_(Kind::kInt), number_(number) {}              // NOLINT: implicit
  static PthKey tuple(std::vector<std::string> items) {
    PthKey key("");
    key.kind_ = Kind::kStringTuple;
    key.items_ = std::move(items);
    return key;
  }
  bool is_int() const { return kind_ == Kind::kInt; }
  bool is_tuple() const { return kind_ == Kind::kStringTuple; }
  int64_t as_int() const { return number_; }
  const std::string& as_string() const { return text_; }
  const std::vector<std::string>& tuple_items() const { return items_; }
  // The text, the number, or "(a, b)".
  std::string to_string() const;
  bool operator==(const PthKey& other) const {
    return kind_ == other.kind_ && number_ == other.number_ && text_ == other.text_ &&
           items_ == other.items_;
  }

 private:
  Kind kind_;
  int64_t number_ = 0;
  std::string text_;
  std::vector<std::string> items_;
};

// Ordered key/value pairs: Python dicts keep insertion order, and state dicts rely on it.
using PthDictItems = std::vector<std::pair<PthKey, PthValue>>;

// A Python object the reader does not decode (an unknown class, a callable). It keeps the
// dotted type name and a note saying why it stayed opaque.
struct PthOpaque {
  std::string type_name;
  std::string note;
  bool is_global = false;  // a reference to a class or function, not an instance
};

// One node of the object tree held in a .pth file. Like a Python reference, copying a PthValue
// shares the node: a container reached through two paths is one container.
class PthValue {
 public:
  enum class Kind {
    kNone,
    kBool,
    kInt,
    kFloat,
    kString,
    kBytes,
    kList,
    kTuple,
    kDict,
    kTensor,
    kStorage,
    kOpaque
  };

  PthValue();  // None
  static PthValue from_bool(bool value);
  static PthValue from_int(int64_t value);
  static PthValue from_float(double value);
  static PthValue from_string(std::string value);
  static PthValue from_bytes(std::string value);
  static PthValue list(std::vector<PthValue> items = {});
  static PthValue tuple(std::vector<PthValue> items = {});
  // `ordered` marks a `collections.OrderedDict` (what `state_dict()` returns); both keep order.
  static PthValue dict(PthDictItems items = {}, bool ordered = false);
  static PthValue tensor(at::Tensor value);
  // A whole storage (1-D, its element type), as persistent ids refer to them.
  static PthValue storage(at::Tensor value);
  static PthValue opaque(PthOpaque value);

  Kind kind() const;
  const char* kind_name() const;  // "None", "int", "dict", ... for messages
  bool is_none() const { return kind() == Kind::kNone; }
  bool is_dict() const { return kind() == Kind::kDict; }
  bool is_tensor() const { return kind() == Kind::kTensor; }
  bool is_sequence() const { return kind() == Kind::kList || kind() == Kind::kTuple; }

  // Accessors throw olv2::Error (input) naming the expected and the actual kind.
  bool as_bool() const;
  int64_t as_int() const;   // int or bool
  double as_float() const;  // float, int or bool
  const std::string& as_string() const;
  const std::string& as_bytes() const;
  const at::Tensor& as_tensor() const;  // tensor or storage
  const PthOpaque& as_opaque() const;
  const std::vector<PthValue>& items() const;  // list or tuple
  std::vector<PthValue>& items();
  const PthDictItems& dict_items() const;
  PthDictItems& dict_items();
  bool is_ordered_dict() const;

  // Dict lookups. find() returns nullptr when absent; at() throws naming the key.
  const PthValue* find(const PthKey& key) const;
  const PthValue& at(const PthKey& key) const;
  // Sets `key` (appending when new, keeping its place when present).
  void set(const PthKey& key, PthValue value);

  // Replaces this node's content for every holder (Python's in-place BUILD).
  void assign(const PthValue& other);
  // True when both handles share one node.
  bool same_node(const PthValue& other) const { return node_ == other.node_; }
  const void* node_id() const { return node_.get(); }

 private:
  struct Node;
  static std::shared_ptr<Node> make_node(Kind kind);
  explicit PthValue(std::shared_ptr<Node> node);
  const Node& node() const;
  Node& checked(Kind kind, const char* expected) const;
  std::shared_ptr<Node> node_;
};

const char* to_string(PthValue::Kind kind);

}  // namespace olv2
