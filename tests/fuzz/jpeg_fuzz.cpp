// Image decoding through the loader's path: the completeness check, then OpenCV's decoder.
#include "fuzz_target.h"
#include "olv2/data/image_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::filesystem::path file = olv2::fuzz::scratch_file(data, size, ".jpg");
  return olv2::fuzz::accept_only_olv2_errors([&] {
    olv2::inspect_image_file(file.string());
    olv2::decode_image(file.string());
  });
}
