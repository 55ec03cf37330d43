// The collection JSON reader: its splits and the frames of one split.
#include "fuzz_target.h"
#include "olv2/data/frame_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::filesystem::path file = olv2::fuzz::scratch_file(data, size, ".json");
  return olv2::fuzz::accept_only_olv2_errors([&] {
    for (const std::string& split : olv2::read_collection_splits(file)) {
      olv2::read_collection(file, split);
    }
    olv2::read_collection(file, "train");
  });
}
