#include "support/temp_files.h"

#include <fstream>
#include <sstream>

namespace olv2::test {

std::filesystem::path write_text(const std::filesystem::path& dir, const std::string& name,
                                 const std::string& contents) {
  const std::filesystem::path path = dir / name;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace olv2::test
