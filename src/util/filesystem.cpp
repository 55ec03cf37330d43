#include "olv2/util/filesystem.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "olv2/util/error.h"

namespace olv2 {

namespace fs = std::filesystem;

void write_file_atomic(const fs::path& path, const std::string& contents) {
  const fs::path temporary = path.string() + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    throw runtime_error(temporary.string() + ": cannot create: " + std::strerror(errno));
  }
  size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string reason = std::strerror(errno);
      ::close(fd);
      ::unlink(temporary.c_str());
      throw runtime_error(temporary.string() + ": write failed: " + reason);
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(temporary.c_str());
    throw runtime_error(temporary.string() + ": flush failed: " + reason);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(temporary.c_str());
    throw runtime_error(path.string() + ": cannot replace: " + reason);
  }
}

std::string read_file(const fs::path& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) throw input_error(path.string() + ": cannot open for reading");
  std::ostringstream buffer;
  buffer << stream.rdbuf();
  if (stream.bad()) throw input_error(path.string() + ": read failed");
  return buffer.str();
}

}  // namespace olv2
