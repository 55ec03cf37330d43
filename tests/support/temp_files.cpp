#include "support/temp_files.h"

#include <fstream>

namespace olv2::test {

std::filesystem::path write_text(const std::filesystem::path& dir, const std::string& name,
                                 const std::string& contents) {
  const std::filesystem::path path = dir / name;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

}  // namespace olv2::test
