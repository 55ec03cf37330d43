#pragma once
// Everything that differs between operating systems, in one place: platform_posix.cpp (Linux,
// and what POSIX gives elsewhere) or platform_windows.cpp implements it. No other source of the
// project includes an OS header.
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>

namespace olv2::platform {

// "Linux 6.1.0-13-amd64 x86_64", "Windows 10.0.19045 x86_64".
std::string system_description();

// The CPUs this process may run on (its affinity mask), at least 1.
int usable_cpu_count();

// The CPU's model name ("AMD EPYC 7B13"), or "CPU" when the system does not say.
std::string cpu_model_name();

// Physical memory of the machine in bytes; 0 when unknown.
int64_t physical_memory_bytes();

// Resident memory of this process: the most it has held so far, and now; 0 when unknown.
int64_t peak_resident_bytes();
int64_t current_resident_bytes();

// The size of a memory page.
size_t page_size();

// `bytes` (a multiple of page_size()) of fresh zero-filled memory straight from the OS (mmap,
// VirtualAlloc), or nullptr when it has none. unmap_pages gives back any page-aligned run of
// mapped pages, parts of a mapping and runs across neighbouring mappings included (munmap; on
// Windows the pages are decommitted and their addresses stay reserved).
void* map_pages(size_t bytes);
void unmap_pages(void* pages, size_t bytes);
// Moves `bytes` of mapped pages, contents and all, onto mapped pages at `to`, whose own pages are
// discarded, without copying or faulting anything in (Linux's mremap); `from` is then unmapped.
// false when the OS cannot (another OS, or a run across mappings it will not move as one):
// nothing moved, `to` holds fresh pages.
bool move_pages(void* from, size_t bytes, void* to);

// Open file descriptors (handles on Windows) and threads of this process; -1 when unknown.
int64_t open_descriptor_count();
int64_t thread_count();

int64_t process_id();
std::string host_name();

// This host's address on the route towards `host` (a name or a numeric address): the source
// address the OS would use to reach it (nothing is sent). Nothing when `host` does not resolve
// or no route leads there, and on Windows.
std::optional<std::string> local_address_towards(const std::string& host);

// The path of the running executable.
std::filesystem::path executable_path();

// The first shared library loaded into this process whose file name contains `fragment`
// (e.g. "blas"), as a path; empty when there is none.
std::string loaded_library_containing(const std::string& fragment);

// `time` in the local time zone (thread-safe).
std::tm local_time(std::time_t time);

// The value of an environment variable of this process, or nothing when it is not set. Every
// read of the environment goes through here.
std::optional<std::string> environment_variable(const std::string& name);

// Sets an environment variable of this process unless it is already set.
void set_environment_default(const std::string& name, const std::string& value);

// Makes `handler` run on the signals that ask a program to stop: SIGINT and SIGTERM (POSIX),
// SIGINT and SIGBREAK (Windows: Ctrl+C and Ctrl+Break).
void on_stop_signals(void (*handler)(int));

// Ends this process at once, as `kill -9` would: no handler, no flush, no destructor.
[[noreturn]] void kill_self();

// Flushes the file's data to the disk (fsync, FlushFileBuffers). A runtime error names the file.
void flush_to_disk(const std::filesystem::path& file);

// Renames `from` over `to` in one step, so that readers see the old file or the new one
// (rename; MoveFileExW with MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH). A runtime error
// names both.
void replace_file(const std::filesystem::path& from, const std::filesystem::path& to);

// Points `link` at `target` (a file name in the same folder), replacing what `link` was in one
// step. `link` stays a file that any reader (torch.load included) opens as the target: a
// relative symlink on POSIX, a hard link on Windows (a copy where the file system has none). A
// runtime error names the link.
void point_link_at(const std::filesystem::path& link, const std::string& target);

// Runs `command` through the system shell and returns what it wrote to stdout; `exit_status`
// gets its exit status (-1 when it did not exit normally).
std::string run_capturing_stdout(const std::string& command, int& exit_status);

}  // namespace olv2::platform
