#include "olv2/util/crc32.h"

#include <array>

namespace olv2 {

namespace {

// The byte table of a reflected CRC-32 with polynomial `reversed`.
std::array<uint32_t, 256> make_table(uint32_t reversed) {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t value = i;
    for (int bit = 0; bit < 8; ++bit)
      value = (value & 1U) ? (reversed ^ (value >> 1)) : (value >> 1);
    table[i] = value;
  }
  return table;
}

uint32_t update(const std::array<uint32_t, 256>& table, std::string_view data, uint32_t crc) {
  crc = ~crc;
  for (const char byte : data) crc = table[(crc ^ static_cast<uint8_t>(byte)) & 0xFFU] ^ (crc >> 8);
  return ~crc;
}

}  // namespace

uint32_t crc32(std::string_view data, uint32_t crc) {
  static const std::array<uint32_t, 256> table = make_table(0xEDB88320U);
  return update(table, data, crc);
}

uint32_t crc32c(std::string_view data) {
  static const std::array<uint32_t, 256> table = make_table(0x82F63B78U);
  return update(table, data, 0);
}

}  // namespace olv2
