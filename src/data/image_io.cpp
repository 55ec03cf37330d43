#include "olv2/data/image_io.h"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <opencv2/imgcodecs.hpp>
#include <vector>

#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"

namespace olv2 {
namespace {

std::vector<unsigned char> read_bytes(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw input_error(
        "image " + path + ": " +
        (std::filesystem::exists(path, ec) ? "not a regular file" : "file not found"));
  }
  std::ifstream in = open_for_reading(path, "image");
  in.seekg(0, std::ios::end);
  const std::streamsize size = in.tellg();
  if (size < 0) throw input_error("image " + path + ": cannot read its size: " + system_reason());
  std::vector<unsigned char> bytes(static_cast<size_t>(size));
  in.seekg(0);
  errno = 0;
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size)) {
    throw input_error("image " + path + ": read failed: " + system_reason());
  }
  return bytes;
}

// Width and height from the first start-of-frame marker of a JPEG header.
bool jpeg_header_size(const std::vector<unsigned char>& head, int& width, int& height) {
  size_t pos = 2;
  while (pos + 4 <= head.size()) {
    if (head[pos] != 0xFF) return false;
    const unsigned char marker = head[pos + 1];
    if (marker == 0xFF) {
      ++pos;
      continue;
    }
    const size_t length = (static_cast<size_t>(head[pos + 2]) << 8) | head[pos + 3];
    const bool start_of_frame =
        marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (start_of_frame) {
      if (pos + 9 > head.size()) return false;
      height = (head[pos + 5] << 8) | head[pos + 6];
      width = (head[pos + 7] << 8) | head[pos + 8];
      return true;
    }
    if (marker == 0xDA || length < 2) return false;  // scan data before any frame header
    pos += 2 + length;
  }
  return false;
}

}  // namespace

ImageFileInfo inspect_image_file(const std::string& path) {
  ImageFileInfo info;
  std::error_code ec;
  info.exists = std::filesystem::exists(path, ec);
  info.regular = info.exists && std::filesystem::is_regular_file(path, ec);
  if (!info.regular) return info;
  info.bytes = std::filesystem::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  if (!in || ec) {
    info.regular = false;
    return info;
  }
  constexpr size_t kHead = 1 << 16;
  constexpr size_t kTail = 1024;
  std::vector<unsigned char> head(std::min<uintmax_t>(info.bytes, kHead));
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
  info.is_jpeg = head.size() >= 2 && head[0] == 0xFF && head[1] == 0xD8;
  if (!info.is_jpeg) {
    info.complete = true;
    return info;
  }
  jpeg_header_size(head, info.width, info.height);
  std::vector<unsigned char> tail(std::min<uintmax_t>(info.bytes, kTail));
  in.seekg(static_cast<std::streamoff>(info.bytes - tail.size()));
  in.read(reinterpret_cast<char*>(tail.data()), static_cast<std::streamsize>(tail.size()));
  // jpeg_is_complete looks for the SOI at the start: give it the head's first two bytes.
  std::vector<unsigned char> probe = {0xFF, 0xD8};
  probe.insert(probe.end(), tail.begin(), tail.end());
  info.complete = in.good() && jpeg_is_complete(probe);
  return info;
}

bool jpeg_is_complete(const std::vector<unsigned char>& bytes) {
  const bool is_jpeg = bytes.size() >= 2 && bytes[0] == 0xFF && bytes[1] == 0xD8;
  if (!is_jpeg) return true;
  size_t end = bytes.size();
  while (end > 2 && bytes[end - 1] == 0x00) --end;
  // Entropy-coded scan data never contains FF D9 (0xFF is always stuffed or a
  // restart marker).
  return end >= 4 && bytes[end - 2] == 0xFF && bytes[end - 1] == 0xD9;
}

cv::Mat decode_image(const std::string& path) {
  const std::vector<unsigned char> bytes = read_bytes(path);
  if (bytes.empty()) throw input_error("image " + path + ": empty file");
  if (!jpeg_is_complete(bytes)) {
    throw input_error("image " + path +
                      ": truncated JPEG (no end-of-image marker; incomplete download?)");
  }
  cv::Mat image;
  try {
    image = cv::imdecode(bytes, cv::IMREAD_UNCHANGED);
  } catch (const cv::Exception& e) {
    throw input_error("image " + path + ": cannot decode: " + e.what());
  }
  if (image.empty())
    throw input_error("image " + path + ": cannot decode (corrupt or not an image)");
  if (image.depth() != CV_8U) throw input_error("image " + path + ": expected 8-bit samples");
  return image;
}

}  // namespace olv2
