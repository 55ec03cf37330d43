#pragma once
// Reading the uncompressed entries of an in-memory zip archive, as torch.save writes them.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace olv2 {

// Reads the uncompressed ("stored") entries of a zip archive held in memory, as torch.save
// writes them (zip64 included). Compressed entries are listed but cannot be read. Every
// offset and size is checked against the buffer; problems throw olv2::Error (input).
class ZipReader {
 public:
  struct Entry {
    std::string name;
    uint16_t method = 0;  // 0 = stored
    uint32_t crc = 0;
    uint64_t size = 0;  // uncompressed
    uint64_t compressed_size = 0;
    uint64_t header_offset = 0;  // of the local file header
  };

  explicit ZipReader(std::string_view archive);

  const std::vector<Entry>& entries() const { return entries_; }
  const Entry* find(const std::string& name) const;
  // The entry's bytes (a view into the archive), CRC-checked.
  std::string_view read(const Entry& entry) const;

 private:
  void read_central_directory();
  std::string_view archive_;
  std::vector<Entry> entries_;
};

// True when `bytes` starts like a zip archive (a local file header).
bool looks_like_zip(std::string_view bytes);

}  // namespace olv2
