// The .pth reader: zip and legacy formats, the pickle machine, storages and tensors.
#include "fuzz_target.h"
#include "olv2/util/pth/pth_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return olv2::fuzz::accept_only_olv2_errors(
      [&] { olv2::parse_pth(olv2::fuzz::as_text(data, size)); });
}
