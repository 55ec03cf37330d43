#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>

#include "olv2/util/error.h"
#include "olv2/util/platform.h"

namespace olv2::platform {

namespace fs = std::filesystem;

namespace {

std::string errno_text() { return std::strerror(errno); }

}  // namespace

std::string system_description() {
  utsname name{};
  if (uname(&name) != 0) return "unknown";
  return std::string(name.sysname) + " " + name.release + " " + name.machine;
}

int usable_cpu_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    const size_t start = line.find_first_not_of(' ', colon + 1);
    return start == std::string::npos ? "CPU" : line.substr(start);
  }
  return "CPU";
}

size_t page_size() {
  static const size_t bytes = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return bytes;
}

void* map_pages(size_t bytes) {
  void* pages = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return pages == MAP_FAILED ? nullptr : pages;
}

void unmap_pages(void* pages, size_t bytes) { munmap(pages, bytes); }

bool move_pages(void* from, size_t bytes, void* to) {
#if defined(__linux__)
  if (mremap(from, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, to) != MAP_FAILED) return true;
  // A failed mremap may already have unmapped the destination: map it again.
  if (mmap(to, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
      MAP_FAILED) {
    throw std::bad_alloc();
  }
#else
  (void)from;
  (void)bytes;
  (void)to;
#endif
  return false;
}

int64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  return pages > 0 ? static_cast<int64_t>(pages) * static_cast<int64_t>(page_size()) : 0;
}

int64_t peak_resident_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
#if defined(__APPLE__)
  return static_cast<int64_t>(usage.ru_maxrss);  // bytes there, KiB on Linux
#else
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
#endif
}

int64_t current_resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  if (!(statm >> pages >> resident)) return 0;
  return static_cast<int64_t>(resident) * sysconf(_SC_PAGESIZE);
}

int64_t open_descriptor_count() {
  std::error_code error;
  int64_t count = 0;
  for (fs::directory_iterator it("/proc/self/fd", error), end; !error && it != end;
       it.increment(error)) {
    ++count;
  }
  return error ? -1 : count - 1;  // less the descriptor of the listing itself
}

int64_t thread_count() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Threads:", 0) == 0) return std::stoll(line.substr(8));
  }
  return -1;
}

int64_t process_id() { return static_cast<int64_t>(::getpid()); }

std::string host_name() {
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) != 0) return "localhost";
  return host.data();
}

fs::path executable_path() {
  std::error_code error;
  const fs::path path = fs::read_symlink("/proc/self/exe", error);
  if (error) throw runtime_error("cannot tell the path of this program: " + error.message());
  return path;
}

std::string loaded_library_containing(const std::string& fragment) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    const size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    if (fs::path(path).filename().string().find(fragment) != std::string::npos) return path;
  }
  return "";
}

std::tm local_time(std::time_t time) {
  std::tm local{};
  localtime_r(&time, &local);
  return local;
}

std::optional<std::string> environment_variable(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

void set_environment_default(const std::string& name, const std::string& value) {
  ::setenv(name.c_str(), value.c_str(), /*overwrite=*/0);
}

void on_stop_signals(void (*handler)(int)) {
  std::signal(SIGINT, handler);
  std::signal(SIGTERM, handler);
}

void kill_self() {
  ::kill(::getpid(), SIGKILL);
  std::_Exit(137);  // not reached
}

void flush_to_disk(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY);
  if (fd < 0) throw runtime_error(file.string() + ": cannot open to flush: " + errno_text());
  if (::fsync(fd) != 0) {
    const std::string reason = errno_text();
    ::close(fd);
    throw runtime_error(file.string() + ": flush to disk failed: " + reason);
  }
  ::close(fd);
}

void replace_file(const fs::path& from, const fs::path& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    throw runtime_error(to.string() + ": cannot replace it with " + from.string() + ": " +
                        errno_text());
  }
}

void point_link_at(const fs::path& link, const std::string& target) {
  const fs::path temporary =
      link.parent_path() / ("." + link.filename().string() + ".tmp." + std::to_string(::getpid()));
  std::error_code error;
  fs::remove(temporary, error);
  fs::create_symlink(target, temporary, error);
  if (!error) fs::rename(temporary, link, error);
  if (error) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw runtime_error(link.string() + ": cannot point it at " + target + ": " + error.message());
  }
}

std::string run_capturing_stdout(const std::string& command, int& exit_status) {
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw runtime_error("cannot run " + command + ": " + errno_text());
  std::string output;
  std::array<char, 4096> buffer{};
  size_t read = 0;
  while ((read = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    output.append(buffer.data(), read);
  const int status = ::pclose(pipe);
  exit_status = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return output;
}

std::optional<std::string> local_address_towards(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  // Any port: a datagram socket's connect only picks the route.
  if (::getaddrinfo(host.c_str(), "9", &hints, &found) != 0 || found == nullptr)
    return std::nullopt;
  std::optional<std::string> address;
  for (const addrinfo* entry = found; entry != nullptr && !address; entry = entry->ai_next) {
    const int fd = ::socket(entry->ai_family, entry->ai_socktype, entry->ai_protocol);
    if (fd < 0) continue;
    sockaddr_storage local{};
    socklen_t length = sizeof(local);
    if (::connect(fd, entry->ai_addr, entry->ai_addrlen) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0) {
      char text[INET6_ADDRSTRLEN] = {};
      const void* raw =
          local.ss_family == AF_INET
              ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&local)->sin_addr)
              : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr);
      if (::inet_ntop(local.ss_family, raw, text, sizeof(text)) != nullptr) address = text;
    }
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return address;
}

}  // namespace olv2::platform
