#include "olv2/util/pth/pickle_reader.h"

#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "olv2/util/error.h"
#include "olv2/util/pth/byte_reader.h"
#include "olv2/util/pth/pickle_globals.h"

namespace olv2 {

namespace {

// Deeper trees are refused: checkpoints are a few levels deep, and the limit keeps recursion
// over a (malicious) tree bounded.
constexpr int kMaxDepth = 256;

PthKey to_key(const PthValue& value) {
  switch (value.kind()) {
    case PthValue::Kind::kString:
      return PthKey(value.as_string());
    case PthValue::Kind::kInt:
    case PthValue::Kind::kBool:
      return PthKey(value.as_int());
    case PthValue::Kind::kTuple: {
      std::vector<std::string> items;
      for (const PthValue& item : value.items()) {
        if (item.kind() != PthValue::Kind::kString) {
          throw input_error(std::string("dict key: a tuple holding a ") + item.kind_name() +
                            ", only tuples of str are supported");
        }
        items.push_back(item.as_string());
      }
      return PthKey::tuple(std::move(items));
    }
    default:
      throw input_error(std::string("dict key of type ") + value.kind_name() + " is not supported");
  }
}

// Little-endian two's complement integer of `bytes` (LONG1 / LONG4).
PthValue decode_long(std::string_view bytes) {
  if (bytes.empty()) return PthValue::from_int(0);
  const bool negative = (static_cast<uint8_t>(bytes.back()) & 0x80U) != 0;
  const char fill = negative ? '\xff' : '\0';
  while (bytes.size() > 8 && bytes.back() == fill &&
         ((static_cast<uint8_t>(bytes[bytes.size() - 2]) & 0x80U) != 0) == negative) {
    bytes.remove_suffix(1);
  }
  if (bytes.size() > 8) return PthValue::opaque({"int", "integer wider than 64 bits", false});
  uint64_t value = negative ? ~uint64_t{0} : 0;
  for (size_t i = bytes.size(); i-- > 0;) {
    value = (value << 8) | static_cast<uint8_t>(bytes[i]);
  }
  return PthValue::from_int(static_cast<int64_t>(value));
}

double decode_big_endian_double(std::string_view bytes) {
  uint64_t bits = 0;
  for (const char byte : bytes) bits = (bits << 8) | static_cast<uint8_t>(byte);
  double value = 0.0;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

class Interpreter {
 public:
  Interpreter(std::string_view bytes, const PersistentLoader& load_persistent)
      : reader_(bytes, "pickle"), load_persistent_(load_persistent) {}

  ~Interpreter() {
    // Emptying every container we made breaks reference cycles a corrupt pickle may have built
    // and keeps destruction flat; on success the result has been checked acyclic and shallow.
    // Containers the result does not hold (popped or memo-only) are emptied too: a chain of
    // them could otherwise be deep enough to overflow the stack when destroyed.
    for (PthValue& container : containers_) {
      if (!succeeded_ || reachable_.count(container.node_id()) == 0) clear(container);
    }
  }

  PthValue run(size_t* consumed) {
    while (true) {
      const size_t opcode_offset = reader_.position();
      const uint8_t opcode = reader_.u8();
      if (opcode == '.') break;
      try {
        step(opcode);
      } catch (
          const std::exception& error) {  // olv2::Error, or a tensor library error on corrupt input
        throw input_error("pickle opcode 0x" + hex(opcode) + " at offset " +
                          std::to_string(opcode_offset) + ": " + error.what());
      }
    }
    if (stack_.size() != 1 || !marks_.empty()) {
      throw input_error("malformed pickle: STOP with " + std::to_string(stack_.size()) +
                        " values on the stack");
    }
    std::unordered_set<const void*> on_path;
    check_tree(stack_.back(), 0, on_path, reachable_);
    if (consumed != nullptr) *consumed = reader_.position();
    succeeded_ = true;
    return stack_.back();
  }

 private:
  static std::string hex(uint8_t byte) {
    const char* digits = "0123456789abcdef";
    return {digits[byte >> 4], digits[byte & 0xF]};
  }

  static void clear(PthValue& container) {
    if (container.is_dict()) {
      container.dict_items().clear();
    } else if (container.is_sequence()) {
      container.items().clear();
    }
  }

  static void check_tree(const PthValue& value, int depth, std::unordered_set<const void*>& on_path,
                         std::unordered_set<const void*>& checked) {
    if (!value.is_dict() && !value.is_sequence()) return;
    if (checked.count(value.node_id()) != 0) return;
    if (depth > kMaxDepth || on_path.count(value.node_id()) != 0) {
      throw input_error("pickle builds a cyclic or over-deep (> " + std::to_string(kMaxDepth) +
                        " levels) object tree");
    }
    on_path.insert(value.node_id());
    if (value.is_dict()) {
      for (const auto& entry : value.dict_items())
        check_tree(entry.second, depth + 1, on_path, checked);
    } else {
      for (const PthValue& item : value.items()) check_tree(item, depth + 1, on_path, checked);
    }
    on_path.erase(value.node_id());
    checked.insert(value.node_id());
  }

  PthValue track(PthValue container) {
    containers_.push_back(container);
    return container;
  }

  void push(PthValue value) { stack_.push_back(std::move(value)); }

  PthValue pop() {
    if (stack_.size() <= stack_floor()) throw input_error("stack underflow");
    PthValue value = std::move(stack_.back());
    stack_.pop_back();
    return value;
  }

  PthValue& top() {
    if (stack_.size() <= stack_floor()) throw input_error("stack underflow");
    return stack_.back();
  }

  size_t stack_floor() const { return marks_.empty() ? 0 : marks_.back(); }

  std::vector<PthValue> pop_to_mark() {
    if (marks_.empty()) throw input_error("no MARK on the stack");
    const size_t mark = marks_.back();
    marks_.pop_back();
    std::vector<PthValue> items(stack_.begin() + static_cast<std::ptrdiff_t>(mark), stack_.end());
    stack_.resize(mark);
    return items;
  }

  void memo_put(uint64_t index) { memo_[index] = top(); }

  void memo_get(uint64_t index) {
    auto it = memo_.find(index);
    if (it == memo_.end())
      throw input_error("memo entry " + std::to_string(index) + " was never stored");
    push(it->second);
  }

  void tuple_of(size_t count) {
    std::vector<PthValue> items(count);
    for (size_t i = count; i-- > 0;) items[i] = pop();
    push(track(PthValue::tuple(std::move(items))));
  }

  static void set_items(PthValue& dict, std::vector<PthValue>& flat) {
    if (!dict.is_dict())
      throw input_error(std::string("SETITEM(S) on a ") + dict.kind_name() + ", expected dict");
    if (flat.size() % 2 != 0) throw input_error("SETITEMS with an odd number of values");
    for (size_t i = 0; i < flat.size(); i += 2) dict.set(to_key(flat[i]), flat[i + 1]);
  }

  static void append_items(PthValue& list, std::vector<PthValue>& items) {
    if (list.kind() != PthValue::Kind::kList) {
      throw input_error(std::string("APPEND(S)/ADDITEMS on a ") + list.kind_name() +
                        ", expected list or set");
    }
    for (PthValue& item : items) list.items().push_back(std::move(item));
  }

  void push_global(const std::string& module, const std::string& name) {
    push(PthValue::opaque({module + "." + name, "reference to a Python global", true}));
  }

  void push_text(std::string_view text, bool as_bytes) {
    push(as_bytes ? PthValue::from_bytes(std::string(text))
                  : PthValue::from_string(std::string(text)));
  }

  void step(uint8_t opcode) {
    switch (opcode) {
      case 0x80: {  // PROTO
        const uint8_t version = reader_.u8();
        if (version > 5)
          throw input_error("unsupported pickle protocol " + std::to_string(version));
        break;
      }
      case 0x95:
        reader_.u64();
        break;  // FRAME: a length hint only
      case '(':
        marks_.push_back(stack_.size());
        break;
      case '0':
        pop();
        break;
      case '1':
        pop_to_mark();
        break;
      case '2':
        push(top());
        break;
      case '}':
        push(track(PthValue::dict()));
        break;
      case ']':
        push(track(PthValue::list()));
        break;
      case ')':
        push(track(PthValue::tuple()));
        break;
      case 0x8f:
        push(track(PthValue::list()));
        break;  // EMPTY_SET, decoded as a list
      case 0x85:
        tuple_of(1);
        break;
      case 0x86:
        tuple_of(2);
        break;
      case 0x87:
        tuple_of(3);
        break;
      case 't':
        push(track(PthValue::tuple(pop_to_mark())));
        break;
      case 'l':
        push(track(PthValue::list(pop_to_mark())));
        break;
      case 0x91:
        push(track(PthValue::list(pop_to_mark())));
        break;  // FROZENSET
      case 'd': {
        std::vector<PthValue> flat = pop_to_mark();
        PthValue dict = track(PthValue::dict());
        set_items(dict, flat);
        push(dict);
        break;
      }
      case 's': {
        std::vector<PthValue> flat(2);
        flat[1] = pop();
        flat[0] = pop();
        set_items(top(), flat);
        break;
      }
      case 'u': {
        std::vector<PthValue> flat = pop_to_mark();
        set_items(top(), flat);
        break;
      }
      case 'a': {
        std::vector<PthValue> items{pop()};
        append_items(top(), items);
        break;
      }
      case 'e':
      case 0x90: {  // APPENDS, ADDITEMS
        std::vector<PthValue> items = pop_to_mark();
        append_items(top(), items);
        break;
      }
      case 'J':
        push(PthValue::from_int(reader_.i32()));
        break;
      case 'K':
        push(PthValue::from_int(reader_.u8()));
        break;
      case 'M':
        push(PthValue::from_int(reader_.u16()));
        break;
      case 0x8a:
        push(decode_long(reader_.take(reader_.u8())));
        break;
      case 0x8b: {
        const int32_t length = reader_.i32();
        if (length < 0) throw input_error("negative LONG4 length");
        push(decode_long(reader_.take(static_cast<uint64_t>(length))));
        break;
      }
      case 'I':
        push_int_line(reader_.line());
        break;
      case 'G':
        push(PthValue::from_float(decode_big_endian_double(reader_.take(8))));
        break;
      case 'N':
        push(PthValue());
        break;
      case 0x88:
        push(PthValue::from_bool(true));
        break;
      case 0x89:
        push(PthValue::from_bool(false));
        break;
      case 0x8c:
        push_text(reader_.take(reader_.u8()), false);
        break;
      case 'X':
        push_text(reader_.take(reader_.u32()), false);
        break;
      case 0x8d:
        push_text(reader_.take(reader_.u64()), false);
        break;
      case 'U':
        push_text(reader_.take(reader_.u8()), false);
        break;
      case 'T':
        push_text(reader_.take(reader_.u32()), false);
        break;
      case 'C':
        push_text(reader_.take(reader_.u8()), true);
        break;
      case 'B':
        push_text(reader_.take(reader_.u32()), true);
        break;
      case 0x8e:
      case 0x96:
        push_text(reader_.take(reader_.u64()), true);
        break;  // BINBYTES8, BYTEARRAY8
      case 'q':
        memo_put(reader_.u8());
        break;
      case 'r':
        memo_put(reader_.u32());
        break;
      case 0x94:
        memo_put(memo_.size());
        break;
      case 'h':
        memo_get(reader_.u8());
        break;
      case 'j':
        memo_get(reader_.u32());
        break;
      case 'c': {
        const std::string module(reader_.line());
        const std::string name(reader_.line());
        push_global(module, name);
        break;
      }
      case 0x93: {
        const PthValue name = pop();
        const PthValue module = pop();
        push_global(module.as_string(), name.as_string());
        break;
      }
      case 'R':
      case 0x81: {  // REDUCE, NEWOBJ
        const PthValue args = pop();
        const PthValue callable = pop();
        if (args.kind() != PthValue::Kind::kTuple)
          throw input_error("call arguments are not a tuple");
        push(track_if_container(call_pickled_global(callable, args)));
        break;
      }
      case 0x92: {  // NEWOBJ_EX: keyword arguments are not used by whitelisted types
        pop();
        const PthValue args = pop();
        const PthValue callable = pop();
        if (args.kind() != PthValue::Kind::kTuple)
          throw input_error("call arguments are not a tuple");
        push(track_if_container(call_pickled_global(callable, args)));
        break;
      }
      case 'b': {
        const PthValue state = pop();
        build_pickled_object(top(), state);
        break;
      }
      case 'Q': {
        const PthValue persistent_id = pop();
        push(load_persistent_(persistent_id));
        break;
      }
      case 'P':
        push(load_persistent_(PthValue::from_string(std::string(reader_.line()))));
        break;
      default:
        throw input_error("unsupported or invalid opcode");
    }
  }

  PthValue track_if_container(PthValue value) {
    if (value.is_dict() || value.is_sequence()) containers_.push_back(value);
    return value;
  }

  void push_int_line(std::string_view text) {
    if (text == "01" || text == "00") {
      push(PthValue::from_bool(text == "01"));
      return;
    }
    try {
      size_t used = 0;
      const std::string digits(text);
      const long long value = std::stoll(digits, &used);
      if (used != digits.size()) throw input_error("bad INT literal");
      push(PthValue::from_int(value));
    } catch (const std::logic_error&) {
      throw input_error("bad INT literal `" + std::string(text) + "`");
    }
  }

  ByteReader reader_;
  const PersistentLoader& load_persistent_;
  std::vector<PthValue> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, PthValue> memo_;
  std::vector<PthValue> containers_;
  std::unordered_set<const void*> reachable_;  // containers of the result, once checked
  bool succeeded_ = false;
};

}  // namespace

PthValue unpickle(std::string_view bytes, const PersistentLoader& load_persistent,
                  size_t* consumed) {
  Interpreter interpreter(bytes, load_persistent);
  return interpreter.run(consumed);
}

}  // namespace olv2
