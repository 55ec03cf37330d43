#pragma once
#include <filesystem>
#include <string>

namespace olv2::test {

// Writes `contents` to `dir / name` (creating directories) and returns the path.
std::filesystem::path write_text(const std::filesystem::path& dir, const std::string& name,
                                 const std::string& contents);

// The bytes of `path` (empty when it cannot be read).
std::string read_file(const std::filesystem::path& path);

}  // namespace olv2::test
