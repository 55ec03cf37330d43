#pragma once
#include <filesystem>
#include <string>

namespace olv2 {

// Writes `contents` to `path` through a temporary file in the same directory, flushed and then
// renamed over `path`: readers see the old file or the new one, never half of one.
void write_file_atomic(const std::filesystem::path& path, const std::string& contents);

// The whole file as bytes; an input error naming the file when it cannot be read.
std::string read_file(const std::filesystem::path& path);

}  // namespace olv2
