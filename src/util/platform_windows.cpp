// The Windows side of the platform layer (MSVC or MinGW-w64). Wide-character APIs throughout, so
// that paths outside the ANSI code page work.
#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
// windows.h first: these need its types.
#include <psapi.h>
#include <tlhelp32.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "olv2/util/error.h"
#include "olv2/util/platform.h"

namespace olv2::platform {

namespace fs = std::filesystem;

namespace {

std::string last_error_text() {
  const DWORD code = GetLastError();
  wchar_t* text = nullptr;
  const DWORD length = FormatMessageW(
      FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
      nullptr, code, 0, reinterpret_cast<wchar_t*>(&text), 0, nullptr);
  std::string message = "Windows error " + std::to_string(code);
  if (length > 0 && text != nullptr) {
    message = fs::path(std::wstring(text, length)).string();
    while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) {
      message.pop_back();
    }
  }
  LocalFree(text);
  return message;
}

}  // namespace

std::string system_description() {
  // GetVersionEx reports what the manifest allows; ntdll's RtlGetVersion tells the truth.
  using RtlGetVersionFunction = LONG(WINAPI*)(OSVERSIONINFOW*);
  OSVERSIONINFOW version{};
  version.dwOSVersionInfoSize = sizeof(version);
  if (HMODULE ntdll = GetModuleHandleW(L"ntdll.dll")) {
    if (auto get_version = reinterpret_cast<RtlGetVersionFunction>(
            reinterpret_cast<void*>(GetProcAddress(ntdll, "RtlGetVersion")))) {
      get_version(&version);
    }
  }
  SYSTEM_INFO system{};
  GetNativeSystemInfo(&system);
  const char* machine = system.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_AMD64   ? "x86_64"
                        : system.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_ARM64 ? "arm64"
                                                                                        : "x86";
  return "Windows " + std::to_string(version.dwMajorVersion) + "." +
         std::to_string(version.dwMinorVersion) + "." + std::to_string(version.dwBuildNumber) +
         " " + machine;
}

int usable_cpu_count() {
  DWORD_PTR process_mask = 0, system_mask = 0;
  if (!GetProcessAffinityMask(GetCurrentProcess(), &process_mask, &system_mask)) return 1;
  int count = 0;
  for (; process_mask != 0; process_mask &= process_mask - 1) ++count;
  return count > 0 ? count : 1;
}

std::string cpu_model_name() {
  std::array<wchar_t, 256> name{};
  DWORD bytes = static_cast<DWORD>(name.size() * sizeof(wchar_t));
  if (RegGetValueW(HKEY_LOCAL_MACHINE, L"HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
                   L"ProcessorNameString", RRF_RT_REG_SZ, nullptr, name.data(),
                   &bytes) != ERROR_SUCCESS) {
    return "CPU";
  }
  return fs::path(std::wstring(name.data())).string();
}

size_t page_size() {
  SYSTEM_INFO info;
  GetSystemInfo(&info);
  return static_cast<size_t>(info.dwPageSize);
}

void* map_pages(size_t bytes) {
  return VirtualAlloc(nullptr, bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
}

// MEM_RELEASE frees only a whole allocation; decommitting works on any run of pages of one
// allocation, so a run across neighbouring allocations is decommitted region by region.
void unmap_pages(void* pages, size_t bytes) {
  auto* cursor = static_cast<char*>(pages);
  char* const end = cursor + bytes;
  while (cursor < end) {
    MEMORY_BASIC_INFORMATION region;
    if (VirtualQuery(cursor, &region, sizeof(region)) == 0) return;
    const size_t run = std::min<size_t>(
        static_cast<size_t>(end - cursor),
        static_cast<size_t>(static_cast<char*>(region.BaseAddress) + region.RegionSize - cursor));
    VirtualFree(cursor, run, MEM_DECOMMIT);
    cursor += run;
  }
}

// VirtualAlloc has no way to move committed pages to other addresses.
bool move_pages(void*, size_t, void*) { return false; }

int64_t physical_memory_bytes() {
  MEMORYSTATUSEX status{};
  status.dwLength = sizeof(status);
  return GlobalMemoryStatusEx(&status) ? static_cast<int64_t>(status.ullTotalPhys) : 0;
}

int64_t peak_resident_bytes() {
  PROCESS_MEMORY_COUNTERS counters{};
  if (!GetProcessMemoryInfo(GetCurrentProcess(), &counters, sizeof(counters))) return 0;
  return static_cast<int64_t>(counters.PeakWorkingSetSize);
}

int64_t current_resident_bytes() {
  PROCESS_MEMORY_COUNTERS counters{};
  if (!GetProcessMemoryInfo(GetCurrentProcess(), &counters, sizeof(counters))) return 0;
  return static_cast<int64_t>(counters.WorkingSetSize);
}

int64_t open_descriptor_count() {
  DWORD handles = 0;
  return GetProcessHandleCount(GetCurrentProcess(), &handles) ? static_cast<int64_t>(handles) : -1;
}

int64_t thread_count() {
  const HANDLE snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
  if (snapshot == INVALID_HANDLE_VALUE) return -1;
  THREADENTRY32 entry{};
  entry.dwSize = sizeof(entry);
  int64_t count = 0;
  const DWORD self = GetCurrentProcessId();
  for (BOOL more = Thread32First(snapshot, &entry); more; more = Thread32Next(snapshot, &entry)) {
    if (entry.th32OwnerProcessID == self) ++count;
  }
  CloseHandle(snapshot);
  return count;
}

int64_t process_id() { return static_cast<int64_t>(GetCurrentProcessId()); }

std::string host_name() {
  std::array<wchar_t, MAX_COMPUTERNAME_LENGTH + 1> name{};
  DWORD length = static_cast<DWORD>(name.size());
  if (!GetComputerNameW(name.data(), &length)) return "localhost";
  return fs::path(std::wstring(name.data(), length)).string();
}

fs::path executable_path() {
  std::vector<wchar_t> buffer(MAX_PATH);
  for (;;) {
    const DWORD length =
        GetModuleFileNameW(nullptr, buffer.data(), static_cast<DWORD>(buffer.size()));
    if (length == 0)
      throw runtime_error("cannot tell the path of this program: " + last_error_text());
    if (length < buffer.size()) return fs::path(std::wstring(buffer.data(), length));
    buffer.resize(buffer.size() * 2);
  }
}

std::string loaded_library_containing(const std::string& fragment) {
  std::vector<HMODULE> modules(1024);
  DWORD needed = 0;
  const HANDLE process = GetCurrentProcess();
  if (!EnumProcessModules(process, modules.data(),
                          static_cast<DWORD>(modules.size() * sizeof(HMODULE)), &needed)) {
    return "";
  }
  const size_t count = std::min(modules.size(), static_cast<size_t>(needed / sizeof(HMODULE)));
  for (size_t i = 0; i < count; ++i) {
    std::array<wchar_t, MAX_PATH> name{};
    if (GetModuleFileNameExW(process, modules[i], name.data(), static_cast<DWORD>(name.size()))) {
      const fs::path path(std::wstring(name.data()));
      if (path.filename().string().find(fragment) != std::string::npos) return path.string();
    }
  }
  return "";
}

std::tm local_time(std::time_t time) {
  std::tm local{};
  localtime_s(&local, &time);
  return local;
}

std::optional<std::string> environment_variable(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

void set_environment_default(const std::string& name, const std::string& value) {
  if (std::getenv(name.c_str()) == nullptr) _putenv_s(name.c_str(), value.c_str());
}

void on_stop_signals(void (*handler)(int)) {
  std::signal(SIGINT, handler);
  std::signal(SIGBREAK, handler);
}

void kill_self() {
  TerminateProcess(GetCurrentProcess(), 137);
  std::_Exit(137);  // not reached
}

void flush_to_disk(const fs::path& file) {
  const HANDLE handle =
      CreateFileW(file.wstring().c_str(), GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE,
                  nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (handle == INVALID_HANDLE_VALUE) {
    throw runtime_error(file.string() + ": cannot open to flush: " + last_error_text());
  }
  const bool flushed = FlushFileBuffers(handle) != 0;
  const std::string reason = flushed ? "" : last_error_text();
  CloseHandle(handle);
  if (!flushed) throw runtime_error(file.string() + ": flush to disk failed: " + reason);
}

void replace_file(const fs::path& from, const fs::path& to) {
  if (!MoveFileExW(from.wstring().c_str(), to.wstring().c_str(),
                   MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
    throw runtime_error(to.string() + ": cannot replace it with " + from.string() + ": " +
                        last_error_text());
  }
}

void point_link_at(const fs::path& link, const std::string& target) {
  const fs::path folder = link.parent_path();
  const fs::path temporary =
      folder / ("." + link.filename().string() + ".tmp." + std::to_string(GetCurrentProcessId()));
  DeleteFileW(temporary.wstring().c_str());
  // A hard link is the target file under a second name; where the file system has none
  // (FAT32, some network shares), a copy.
  if (!CreateHardLinkW(temporary.wstring().c_str(), (folder / target).wstring().c_str(), nullptr) &&
      !CopyFileW((folder / target).wstring().c_str(), temporary.wstring().c_str(), FALSE)) {
    throw runtime_error(link.string() + ": cannot point it at " + target + ": " +
                        last_error_text());
  }
  try {
    replace_file(temporary, link);
  } catch (...) {
    DeleteFileW(temporary.wstring().c_str());
    throw;
  }
}

std::string run_capturing_stdout(const std::string& command, int& exit_status) {
  FILE* pipe = _popen(command.c_str(), "rb");
  if (pipe == nullptr) throw runtime_error("cannot run " + command);
  std::string output;
  std::array<char, 4096> buffer{};
  size_t read = 0;
  while ((read = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    output.append(buffer.data(), read);
  }
  exit_status = _pclose(pipe);
  return output;
}

std::optional<std::string> local_address_towards(const std::string& /*host*/) {
  return std::nullopt;  // multi-host training runs on Linux
}

}  // namespace olv2::platform
