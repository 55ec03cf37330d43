#include "olv2/util/pth/zip_writer.h"

#include <cerrno>

#include "olv2/util/crc32.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"

namespace olv2 {

namespace {

constexpr uint64_t kAlignment = 64;
constexpr uint64_t kLargest32BitField = 0xFFFFFFFF;
constexpr uint16_t kPaddingFieldId = 0x4246;  // "FB", the id torch uses for its alignment padding
constexpr uint16_t kVersion = 20;             // 2.0: stored entries, no zip64
constexpr uint16_t kDosDate = (1 << 5) | 1;   // 1980-01-01, a fixed date keeps files reproducible

void put16(std::string& out, uint64_t value) {
  out.push_back(static_cast<char>(value & 0xFF));
  out.push_back(static_cast<char>((value >> 8) & 0xFF));
}

void put32(std::string& out, uint64_t value) {
  put16(out, value & 0xFFFF);
  put16(out, (value >> 16) & 0xFFFF);
}

}  // namespace

void ZipWriter::write_bytes(std::string_view bytes) {
  errno = 0;
  out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out_) {
    const std::string reason = system_reason();
    throw runtime_error("write failed after " + std::to_string(offset_) + " bytes: " + reason);
  }
  offset_ += bytes.size();
}

void ZipWriter::add(const std::string& name, std::string_view data) {
  if (finished_) throw runtime_error("zip writer: entry " + name + " added after finish()");
  const uint64_t unpadded = offset_ + 30 + name.size();
  uint64_t padding = (kAlignment - unpadded % kAlignment) % kAlignment;
  if (padding != 0 && padding < 4) padding += kAlignment;  // the extra field needs a 4-byte header
  if (offset_ + 30 + name.size() + padding + data.size() > kLargest32BitField ||
      name.size() > 0xFFFF) {
    throw runtime_error("zip writer: archive would exceed 4 GiB at entry " + name +
                        " (zip64 is not written)");
  }
  Written entry{name, crc32(data), static_cast<uint32_t>(data.size()),
                static_cast<uint32_t>(offset_)};
  std::string header;
  put32(header, 0x04034b50);
  put16(header, kVersion);
  put16(header, 0);  // flags
  put16(header, 0);  // method: stored
  put16(header, 0);  // time
  put16(header, kDosDate);
  put32(header, entry.crc);
  put32(header, entry.size);
  put32(header, entry.size);
  put16(header, name.size());
  put16(header, padding);
  header += name;
  if (padding != 0) {
    put16(header, kPaddingFieldId);
    put16(header, padding - 4);
    header.append(padding - 4, 'Z');
  }
  write_bytes(header);
  write_bytes(data);
  written_.push_back(std::move(entry));
}

void ZipWriter::finish() {
  if (finished_) return;
  const uint64_t directory_offset = offset_;
  std::string directory;
  for (const Written& entry : written_) {
    put32(directory, 0x02014b50);
    put16(directory, kVersion);
    put16(directory, kVersion);
    put16(directory, 0);
    put16(directory, 0);
    put16(directory, 0);
    put16(directory, kDosDate);
    put32(directory, entry.crc);
    put32(directory, entry.size);
    put32(directory, entry.size);
    put16(directory, entry.name.size());
    put16(directory, 0);  // extra
    put16(directory, 0);  // comment
    put16(directory, 0);  // disk
    put16(directory, 0);  // internal attributes
    put32(directory, 0);  // external attributes
    put32(directory, entry.header_offset);
    directory += entry.name;
  }
  if (directory_offset + directory.size() > kLargest32BitField || written_.size() >= 0xFFFF) {
    throw runtime_error("zip writer: archive exceeds the limits of a zip without zip64");
  }
  const uint64_t directory_size = directory.size();
  put32(directory, 0x06054b50);
  put16(directory, 0);
  put16(directory, 0);
  put16(directory, written_.size());
  put16(directory, written_.size());
  put32(directory, directory_size);
  put32(directory, directory_offset);
  put16(directory, 0);
  write_bytes(directory);
  out_.flush();
  finished_ = true;
}

}  // namespace olv2
