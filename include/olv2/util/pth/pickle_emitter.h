#pragma once
// Python pickles written opcode by opcode, the base of every pickle the project writes.
#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>

namespace olv2 {

// Writes a Python pickle opcode by opcode: the pieces every pickle this project writes is made
// of (torch.save's protocol 2 for .pth files, protocol 3 for the numpy submission file). The
// bytes gather in memory; drain_into() moves them to a stream, so a large pickle can be written
// piece by piece.
class PickleEmitter {
 public:
  // Opcodes that take no argument.
  static constexpr char kMark = '(';
  static constexpr char kStop = '.';
  static constexpr char kNone = 'N';
  static constexpr char kTrue = '\x88';
  static constexpr char kFalse = '\x89';
  static constexpr char kEmptyTuple = ')';
  static constexpr char kTuple = 't';  // the items since the mark
  static constexpr char kTuple1 = '\x85';
  static constexpr char kTuple2 = '\x86';
  static constexpr char kTuple3 = '\x87';
  static constexpr char kEmptyList = ']';
  static constexpr char kAppends = 'e';  // the items since the mark
  static constexpr char kEmptyDict = '}';
  static constexpr char kSetItems = 'u';  // the key/value pairs since the mark
  static constexpr char kSetItem = 's';   // one key/value pair
  static constexpr char kReduce = 'R';
  static constexpr char kBuild = 'b';
  static constexpr char kBinPersId = 'Q';

  // Starts the pickle with its protocol (2 or 3).
  explicit PickleEmitter(int protocol);

  void op(char opcode) { out_ += opcode; }
  void boolean(bool value) { op(value ? kTrue : kFalse); }
  void integer(int64_t value);
  void float64(double value);
  void string(const std::string& text);  // a Python str (UTF-8)
  // A Python bytes object: BINBYTES from protocol 3 on; in protocol 2, as Python writes it,
  // _codecs.encode(<the bytes as latin-1 text>, 'latin1').
  void bytes(const std::string& data);
  void global(const std::string& module, const std::string& name);
  // Python's memo: the first call runs `write` (which leaves one object on the stack) and
  // remembers that object under `key`; later calls fetch it, so a global or a dtype that
  // appears thousands of times is written once.
  void memoized(const std::string& key, const std::function<void()>& write);
  void stop() { op(kStop); }

  int protocol() const { return protocol_; }
  const std::string& text() const { return out_; }
  std::string take() { return std::move(out_); }
  void drain_into(std::ostream& stream);

 private:
  void little_endian(uint64_t value, int bytes);

  int protocol_;
  std::string out_;
  std::map<std::string, uint32_t> memo_;
};

}  // namespace olv2
