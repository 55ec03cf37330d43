#pragma once
// The CRC-32 of zip archives and the CRC-32C of TFRecord files.
#include <cstdint>
#include <string_view>

namespace olv2 {

// CRC-32 (IEEE 802.3, as zip archives store it) of `data`, continuing from `crc`.
uint32_t crc32(std::string_view data, uint32_t crc = 0);

// CRC-32C (Castagnoli, as TFRecord files store it) of `data`.
uint32_t crc32c(std::string_view data);

}  // namespace olv2
