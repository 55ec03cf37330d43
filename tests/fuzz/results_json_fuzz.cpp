// The results-file reader (the streaming parser with its strict checks).
#include "fuzz_target.h"
#include "olv2/evaluation/results_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return olv2::fuzz::accept_only_olv2_errors(
      [&] { olv2::parse_results(std::string(olv2::fuzz::as_text(data, size)), "fuzz.json"); });
}
