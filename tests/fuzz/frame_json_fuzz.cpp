// The frame info JSON reader (every check of the frame's cameras, lanes, elements, topology).
#include "fuzz_target.h"
#include "olv2/data/frame_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return olv2::fuzz::accept_only_olv2_errors([&] {
    const olv2::FrameKey key{"val", "00000", "315967376899927209"};
    for (int interval : {1, 20}) {
      olv2::parse_frame(std::string(olv2::fuzz::as_text(data, size)), "fuzz.json", key,
                        olv2::FrameReadOptions{interval, std::nullopt, {}, std::nullopt});
    }
  });
}
