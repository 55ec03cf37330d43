#pragma once
// Decoding camera images as the original loader does, and inspecting image files without decoding.
#include <cstdint>
#include <opencv2/core/mat.hpp>
#include <string>
#include <vector>

namespace olv2 {

// Decodes an image file as 8-bit, channels unchanged (OpenCV IMREAD_UNCHANGED,
// BGR order), as the original loader does. Input errors name the file: missing
// or unreadable, empty, not decodable, or a JPEG cut short (no end-of-image
// marker: an incomplete download), which is rejected even when the decoder
// would still return an image.
cv::Mat decode_image(const std::string& path);

// True when `bytes` is a JPEG whose data ends with the end-of-image marker FF
// D9 (trailing zero padding allowed). Non-JPEG data returns true.
bool jpeg_is_complete(const std::vector<unsigned char>& bytes);

// What can be learnt about an image file without decoding it: it exists, its size, whether a
// JPEG ends with its end-of-image marker, and the dimensions its JPEG header declares.
struct ImageFileInfo {
  bool exists = false;
  bool regular = false;
  uintmax_t bytes = 0;
  bool is_jpeg = false;
  bool complete = false;  // JPEG end-of-image marker present (non-JPEG: true)
  int width = 0;          // 0 when the header does not say (or not a JPEG)
  int height = 0;
};
ImageFileInfo inspect_image_file(const std::string& path);

}  // namespace olv2
