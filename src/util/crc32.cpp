#include "olv2/util/crc32.h"

#include <array>

namespace olv2 {

namespace {

std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t value = i;
    for (int bit = 0; bit < 8; ++bit)
      value = (value & 1U) ? (0xEDB88320U ^ (value >> 1)) : (value >> 1);
    table[i] = value;
  }
  return table;
}

}  // namespace

uint32_t crc32(std::string_view data, uint32_t crc) {
  static const std::array<uint32_t, 256> table = make_table();
  crc = ~crc;
  for (const char byte : data) crc = table[(crc ^ static_cast<uint8_t>(byte)) & 0xFFU] ^ (crc >> 8);
  return ~crc;
}

}  // namespace olv2
