#pragma once
// Writing an uncompressed zip archive with 64-byte aligned entries, as torch.save does.
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace olv2 {

// Writes a zip archive of uncompressed entries to a stream, each entry's data aligned to 64
// bytes as torch.save does (so readers can map tensors in place). Archives over 4 GiB are
// refused (no zip64 output).
class ZipWriter {
 public:
  explicit ZipWriter(std::ostream& out) : out_(out) {}

  void add(const std::string& name, std::string_view data);
  // Writes the central directory; no entry may be added afterwards.
  void finish();

 private:
  struct Written {
    std::string name;
    uint32_t crc;
    uint32_t size;
    uint32_t header_offset;
  };
  void write_bytes(std::string_view bytes);
  std::ostream& out_;
  uint64_t offset_ = 0;
  std::vector<Written> written_;
  bool finished_ = false;
};

}  // namespace olv2
