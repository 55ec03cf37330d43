#pragma once
// TFRecord framing with its masked CRC32C, as TensorBoard's event files use it.
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "olv2/util/crc32.h"

namespace olv2 {

// TFRecord's masked CRC: rotate right by 15, add 0xa282ead8.
uint32_t masked_crc32c(std::string_view data);

// Appends one record: length (uint64 LE), masked CRC of the length bytes, the data, masked
// CRC of the data.
void write_tfrecord(std::ostream& out, std::string_view data);

// Every record of a TFRecord file. Throws a runtime error naming the file and the record
// offset on a truncated record or a CRC mismatch.
std::vector<std::string> read_tfrecords(const std::filesystem::path& file);

}  // namespace olv2
