// The devkit pickle readers (submission and ground truth) on the project's own unpickler.
#include "fuzz_target.h"
#include "olv2/evaluation/devkit_pickles.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::filesystem::path path = olv2::fuzz::scratch_file(data, size, ".pkl");
  olv2::fuzz::accept_only_olv2_errors([&] { olv2::read_submission_file(path); });
  olv2::fuzz::accept_only_olv2_errors([&] { olv2::read_ground_truth_file(path, "val"); });
  return 0;
}
