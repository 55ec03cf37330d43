#include "olv2/util/filesystem.h"

#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>

#include "olv2/util/error.h"
#include "olv2/util/platform.h"

namespace olv2 {

namespace fs = std::filesystem;

void write_file_atomic(const fs::path& path, const std::function<void(std::ostream&)>& write) {
  const fs::path temporary = path.string() + ".tmp." + std::to_string(platform::process_id());
  try {
    {
      errno = 0;
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      if (!out) throw runtime_error(temporary.string() + ": cannot create: " + system_reason());
      write(out);
      errno = 0;
      out.close();
      if (!out) throw runtime_error(temporary.string() + ": write failed: " + system_reason());
    }
    platform::flush_to_disk(temporary);
    platform::replace_file(temporary, path);
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
}

void write_file_atomic(const fs::path& path, const std::string& contents) {
  write_file_atomic(path, [&](std::ostream& out) {
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  });
}

std::string system_reason() {
  const int error = errno;
  return error == 0 ? std::string("no reason given by the system")
                    : std::generic_category().message(error);
}

namespace {

std::string file_name(const fs::path& path, const std::string& what) {
  return what.empty() ? path.string() : what + " " + path.string();
}

}  // namespace

std::ifstream open_for_reading(const fs::path& path, const std::string& what) {
  errno = 0;
  std::ifstream stream(path, std::ios::binary);
  if (!stream) throw input_error(file_name(path, what) + ": cannot open: " + system_reason());
  return stream;
}

std::string read_file(const fs::path& path, const std::string& what) {
  std::ifstream stream = open_for_reading(path, what);
  std::ostringstream buffer;
  errno = 0;
  buffer << stream.rdbuf();
  if (stream.bad() || (!buffer && errno != 0)) {
    throw input_error(file_name(path, what) + ": read failed: " + system_reason());
  }
  return buffer.str();
}

}  // namespace olv2
