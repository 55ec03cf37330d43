#pragma once
// What every fuzz target shares: the libFuzzer entry point's signature, a per-process scratch
// file for parsers that read paths, and the rule that an olv2::Error (a clear message naming
// the input) is the only acceptable way to reject an input: any other exception escapes to the
// fuzzer and counts as a finding, like a crash.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "olv2/util/error.h"
#include "olv2/util/platform.h"

namespace olv2::fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// `data` written to this process's scratch file with `extension`; returns its path.
inline std::filesystem::path scratch_file(const uint8_t* data, size_t size,
                                          const std::string& extension) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("olv2_fuzz_" + std::to_string(platform::process_id()) + extension);
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

template <typename Body>
int accept_only_olv2_errors(Body&& body) {
  try {
    body();
  } catch (const Error&) {
  }
  return 0;
}

}  // namespace olv2::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
