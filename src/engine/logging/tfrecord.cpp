#include "olv2/engine/logging/tfrecord.h"

#include "olv2/util/crc32.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"

namespace olv2 {
namespace {

std::string little_endian(uint64_t value, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
  return out;
}

uint64_t read_little_endian(std::string_view bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    value |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  }
  return value;
}

}  // namespace

uint32_t masked_crc32c(std::string_view data) {
  const uint32_t crc = crc32c(data);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

void write_tfrecord(std::ostream& out, std::string_view data) {
  const std::string length = little_endian(data.size(), 8);
  out << length << little_endian(masked_crc32c(length), 4) << data
      << little_endian(masked_crc32c(data), 4);
}

std::vector<std::string> read_tfrecords(const std::filesystem::path& file) {
  const std::string bytes = read_file(file, "event file");
  const std::string_view view(bytes);
  std::vector<std::string> records;
  size_t offset = 0;
  auto fail = [&](const std::string& what) {
    return runtime_error("event file " + file.string() + ": record at byte " +
                         std::to_string(offset) + ": " + what);
  };
  while (offset < bytes.size()) {
    if (bytes.size() - offset < 12) throw fail("truncated header");
    const std::string_view length_bytes = view.substr(offset, 8);
    if (read_little_endian(view.substr(offset + 8, 4)) != masked_crc32c(length_bytes)) {
      throw fail("length CRC mismatch");
    }
    const uint64_t length = read_little_endian(length_bytes);
    if (bytes.size() - offset - 12 < length + 4) throw fail("truncated data");
    const std::string_view data = view.substr(offset + 12, length);
    if (read_little_endian(view.substr(offset + 12 + length, 4)) != masked_crc32c(data)) {
      throw fail("data CRC mismatch");
    }
    records.emplace_back(data);
    offset += 12 + length + 4;
  }
  return records;
}

}  // namespace olv2
