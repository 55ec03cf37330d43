#include "olv2/util/pth/zip_reader.h"

#include <algorithm>

#include "olv2/util/crc32.h"
#include "olv2/util/error.h"
#include "olv2/util/pth/byte_reader.h"

namespace olv2 {

namespace {

constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr size_t kEndRecordSize = 22;
constexpr size_t kCentralHeaderSize = 46;
constexpr size_t kLocalHeaderSize = 30;
constexpr uint32_t kMax32 = 0xFFFFFFFF;

struct Directory {
  uint64_t entry_count = 0;
  uint64_t size = 0;
  uint64_t offset = 0;
};

size_t find_end_record(std::string_view archive) {
  if (archive.size() < kEndRecordSize) throw input_error("not a zip archive: too short");
  const size_t last = archive.size() - kEndRecordSize;
  const size_t first = last > 0xFFFF ? last - 0xFFFF : 0;
  for (size_t pos = last + 1; pos-- > first;) {
    ByteReader reader(archive.substr(pos, 4), "zip");
    if (reader.u32() == kEndSignature) return pos;
  }
  throw input_error("not a zip archive: end of central directory record not found (truncated?)");
}

Directory read_zip64_directory(std::string_view archive, size_t end_record) {
  if (end_record < 20) throw input_error("corrupt zip archive: zip64 locator missing");
  ByteReader locator(archive, "zip64 locator");
  locator.seek(end_record - 20);
  if (locator.u32() != kZip64LocatorSignature)
    throw input_error("corrupt zip archive: zip64 locator missing");
  locator.u32();
  const uint64_t record_offset = locator.u64();
  ByteReader record(archive, "zip64 end record");
  record.seek(record_offset);
  if (record.u32() != kZip64EndSignature)
    throw input_error("corrupt zip archive: bad zip64 end record signature");
  record.u64();
  record.u16();
  record.u16();
  record.u32();
  record.u32();
  record.u64();
  Directory directory;
  directory.entry_count = record.u64();
  directory.size = record.u64();
  directory.offset = record.u64();
  return directory;
}

// Replaces the 32-bit fields that overflowed with the values of the zip64 extra field.
void apply_zip64_extra(std::string_view extra, ZipReader::Entry& entry, uint32_t size32,
                       uint32_t compressed32, uint32_t offset32) {
  ByteReader reader(extra, "zip extra field of " + entry.name);
  while (reader.remaining() >= 4) {
    const uint16_t id = reader.u16();
    ByteReader field(reader.take(reader.u16()), "zip64 extra field of " + entry.name);
    if (id != 0x0001) continue;
    if (size32 == kMax32) entry.size = field.u64();
    if (compressed32 == kMax32) entry.compressed_size = field.u64();
    if (offset32 == kMax32) entry.header_offset = field.u64();
    return;
  }
}

}  // namespace

bool looks_like_zip(std::string_view bytes) {
  return bytes.size() >= 4 && bytes[0] == 'P' && bytes[1] == 'K' && bytes[2] == '\x03' &&
         bytes[3] == '\x04';
}

ZipReader::ZipReader(std::string_view archive) : archive_(archive) { read_central_directory(); }

void ZipReader::read_central_directory() {
  const size_t end_record = find_end_record(archive_);
  ByteReader end(archive_, "zip end record");
  end.seek(end_record + 4);
  end.u16();
  end.u16();
  end.u16();
  Directory directory;
  directory.entry_count = end.u16();
  directory.size = end.u32();
  directory.offset = end.u32();
  if (directory.entry_count == 0xFFFF || directory.size == kMax32 || directory.offset == kMax32) {
    directory = read_zip64_directory(archive_, end_record);
  }
  if (directory.offset > archive_.size() || directory.size > archive_.size() - directory.offset) {
    throw input_error("corrupt zip archive: central directory lies outside the file");
  }
  if (directory.entry_count > directory.size / kCentralHeaderSize) {
    throw input_error("corrupt zip archive: " + std::to_string(directory.entry_count) +
                      " entries cannot fit in a central directory of " +
                      std::to_string(directory.size) + " bytes");
  }
  ByteReader reader(archive_.substr(directory.offset, directory.size), "zip central directory");
  entries_.reserve(directory.entry_count);
  for (uint64_t i = 0; i < directory.entry_count; ++i) {
    if (reader.u32() != kCentralHeaderSignature) {
      throw input_error("corrupt zip archive: bad central directory signature for entry " +
                        std::to_string(i));
    }
    reader.take(6);
    Entry entry;
    entry.method = reader.u16();
    reader.take(4);
    entry.crc = reader.u32();
    const uint32_t compressed32 = reader.u32();
    const uint32_t size32 = reader.u32();
    const uint16_t name_length = reader.u16();
    const uint16_t extra_length = reader.u16();
    const uint16_t comment_length = reader.u16();
    reader.take(8);
    const uint32_t offset32 = reader.u32();
    entry.name = std::string(reader.take(name_length));
    entry.size = size32;
    entry.compressed_size = compressed32;
    entry.header_offset = offset32;
    apply_zip64_extra(reader.take(extra_length), entry, size32, compressed32, offset32);
    reader.take(comment_length);
    entries_.push_back(std::move(entry));
  }
}

const ZipReader::Entry* ZipReader::find(const std::string& name) const {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const Entry& e) { return e.name == name; });
  return it == entries_.end() ? nullptr : &*it;
}

std::string_view ZipReader::read(const Entry& entry) const {
  if (entry.method != 0) {
    throw input_error("zip entry " + entry.name + " is compressed (method " +
                      std::to_string(entry.method) +
                      "); only uncompressed entries, as torch.save writes them, are supported");
  }
  if (entry.compressed_size != entry.size) {
    throw input_error("corrupt zip archive: stored entry " + entry.name + " has different sizes");
  }
  ByteReader header(archive_, "zip local header of " + entry.name);
  header.seek(entry.header_offset);
  if (header.u32() != kLocalHeaderSignature) {
    throw input_error("corrupt zip archive: bad local header signature for " + entry.name);
  }
  header.take(kLocalHeaderSize - 8);
  const uint16_t name_length = header.u16();
  const uint16_t extra_length = header.u16();
  header.take(static_cast<uint64_t>(name_length) + extra_length);
  std::string_view data = header.take(entry.size);
  if (crc32(data) != entry.crc)
    throw input_error("corrupt zip archive: CRC mismatch in " + entry.name);
  return data;
}

}  // namespace olv2
