#include "olv2/util/pth/pickle_emitter.h"

#include <cstring>

#include "olv2/util/error.h"

namespace olv2 {

PickleEmitter::PickleEmitter(int protocol) : protocol_(protocol) {
  if (protocol != 2 && protocol != 3) {
    throw runtime_error("pickle protocol " + std::to_string(protocol) + ": expected 2 or 3");
  }
  out_ += '\x80';
  out_ += static_cast<char>(protocol);
}

void PickleEmitter::little_endian(uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out_ += static_cast<char>((value >> (8 * i)) & 0xFF);
}

void PickleEmitter::integer(int64_t value) {
  if (value >= 0 && value < 256) {
    op('K');  // BININT1
    little_endian(static_cast<uint64_t>(value), 1);
  } else if (value >= 0 && value < 65536) {
    op('M');  // BININT2
    little_endian(static_cast<uint64_t>(value), 2);
  } else if (value >= INT32_MIN && value <= INT32_MAX) {
    op('J');  // BININT
    little_endian(static_cast<uint32_t>(static_cast<int32_t>(value)), 4);
  } else {
    op('\x8a');  // LONG1, 8 bytes of two's complement
    out_ += '\x08';
    little_endian(static_cast<uint64_t>(value), 8);
  }
}

void PickleEmitter::float64(double value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  op('G');  // BINFLOAT, big endian
  for (int i = 7; i >= 0; --i) out_ += static_cast<char>((bits >> (8 * i)) & 0xFF);
}

void PickleEmitter::string(const std::string& text) {
  op('X');  // BINUNICODE
  little_endian(text.size(), 4);
  out_ += text;
}

void PickleEmitter::bytes(const std::string& data) {
  if (protocol_ >= 3) {
    if (data.size() < 256) {
      op('C');  // SHORT_BINBYTES
      little_endian(data.size(), 1);
    } else {
      if (data.size() > UINT32_MAX) throw runtime_error("pickle: bytes object over 4 GiB");
      op('B');  // BINBYTES
      little_endian(data.size(), 4);
    }
    out_ += data;
    return;
  }
  // Empty bytes too: torch.load's weights_only unpickler refuses __builtin__.bytes().
  std::string latin1;
  for (const char c : data) {
    const auto byte = static_cast<uint8_t>(c);
    if (byte < 0x80) {
      latin1 += c;
    } else {
      latin1 += static_cast<char>(0xC0 | (byte >> 6));
      latin1 += static_cast<char>(0x80 | (byte & 0x3F));
    }
  }
  global("_codecs", "encode");
  string(latin1);
  string("latin1");
  op(kTuple2);
  op(kReduce);
}

void PickleEmitter::global(const std::string& module, const std::string& name) {
  op('c');
  out_ += module;
  out_ += '\n';
  out_ += name;
  out_ += '\n';
}

void PickleEmitter::memoized(const std::string& key, const std::function<void()>& write) {
  const auto found = memo_.find(key);
  if (found != memo_.end()) {
    if (found->second < 256) {
      op('h');  // BINGET
      little_endian(found->second, 1);
    } else {
      op('j');  // LONG_BINGET
      little_endian(found->second, 4);
    }
    return;
  }
  write();
  const auto index = static_cast<uint32_t>(memo_.size());
  if (index < 256) {
    op('q');  // BINPUT
    little_endian(index, 1);
  } else {
    op('r');  // LONG_BINPUT
    little_endian(index, 4);
  }
  memo_.emplace(key, index);
}

void PickleEmitter::drain_into(std::ostream& stream) {
  stream.write(out_.data(), static_cast<std::streamsize>(out_.size()));
  out_.clear();
}

}  // namespace olv2
