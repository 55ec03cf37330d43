// The frame info JSON reader (every check of the frame's cameras, lanes, elements, topology), of
// both formats: v1.x centerlines at both point intervals, v2.x lane segments as both collections
// resample them; each reading its own try, so that one refusing the input leaves the others to
// run.
#include "fuzz_target.h"
#include "olv2/data/frame_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const olv2::FrameKey key{"val", "00000", "315967376899927209"};
  const std::string text(olv2::fuzz::as_text(data, size));
  for (int interval : {1, 20}) {
    olv2::fuzz::accept_only_olv2_errors([&] {
      olv2::parse_frame(text, "fuzz.json", key,
                        olv2::FrameReadOptions{interval, std::nullopt, {}, std::nullopt});
    });
  }
  for (const olv2::CollectionKind kind :
       {olv2::CollectionKind::kLaneSegment, olv2::CollectionKind::kLaneSegNet}) {
    olv2::fuzz::accept_only_olv2_errors([&] {
      olv2::FrameReadOptions options;
      options.kind = kind;
      olv2::parse_frame(text, "fuzz-ls.json", key, options);
    });
  }
  return 0;
}
