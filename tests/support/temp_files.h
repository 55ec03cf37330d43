#pragma once
#include <filesystem>
#include <string>

namespace olv2::test {

// Writes `contents` to `dir / name` (creating directories) and returns the path.
std::filesystem::path write_text(const std::filesystem::path& dir, const std::string& name,
                                 const std::string& contents);

}  // namespace olv2::test
