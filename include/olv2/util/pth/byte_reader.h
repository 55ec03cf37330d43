#pragma once
// Bounds-checked little-endian reads from a byte buffer, for the pickle and zip readers.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "olv2/util/error.h"

namespace olv2 {

// Bounds-checked reads of little-endian numbers and byte runs from a buffer. Every read past
// the end throws olv2::Error (input) naming `what` (e.g. "pickle") and the offset.
class ByteReader {
 public:
  ByteReader(std::string_view data, std::string what) : data_(data), what_(std::move(what)) {}

  size_t position() const { return position_; }
  size_t remaining() const { return data_.size() - position_; }
  void seek(uint64_t position) {
    if (position > data_.size()) fail("offset " + std::to_string(position) + " is past the end");
    position_ = static_cast<size_t>(position);
  }

  std::string_view take(uint64_t count) {
    if (count > remaining()) {
      fail("needs " + std::to_string(count) + " bytes at offset " + std::to_string(position_) +
           ", only " + std::to_string(remaining()) + " left");
    }
    std::string_view bytes = data_.substr(position_, static_cast<size_t>(count));
    position_ += static_cast<size_t>(count);
    return bytes;
  }

  // The bytes up to the next newline (consumed, not returned), as text opcodes use.
  std::string_view line() {
    const size_t end = data_.find('\n', position_);
    if (end == std::string_view::npos)
      fail("unterminated line at offset " + std::to_string(position_));
    std::string_view text = data_.substr(position_, end - position_);
    position_ = end + 1;
    return text;
  }

  uint8_t u8() { return static_cast<uint8_t>(take(1)[0]); }
  uint16_t u16() { return static_cast<uint16_t>(little_endian(2)); }
  uint32_t u32() { return static_cast<uint32_t>(little_endian(4)); }
  uint64_t u64() { return little_endian(8); }
  int32_t i32() { return static_cast<int32_t>(u32()); }

  [[noreturn]] void fail(const std::string& message) const {
    throw input_error("truncated or corrupt " + what_ + ": " + message);
  }

 private:
  uint64_t little_endian(int count) {
    std::string_view bytes = take(static_cast<uint64_t>(count));
    uint64_t value = 0;
    for (int i = count - 1; i >= 0; --i) value = (value << 8) | static_cast<uint8_t>(bytes[i]);
    return value;
  }

  std::string_view data_;
  std::string what_;
  size_t position_ = 0;
};

}  // namespace olv2
