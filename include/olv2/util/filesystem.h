#pragma once
// File reading and atomic file writing, with the system's reason in errors.
#include <filesystem>
#include <fstream>
#include <functional>
#include <ostream>
#include <string>

namespace olv2 {

// Writes `path` through a temporary file in the same directory: `write` fills the stream, the
// file is flushed to the disk and then renamed over `path`, so readers see the old file or the
// new one, never half of one. On any error the temporary file is removed; a runtime error names
// it.
void write_file_atomic(const std::filesystem::path& path,
                       const std::function<void(std::ostream&)>& write);

// The same with the whole contents at hand.
void write_file_atomic(const std::filesystem::path& path, const std::string& contents);

// The system's reason for the last failed system call (errno), e.g. "No space left on device",
// for the message about a failed read or write; call it at once after the failure.
std::string system_reason();

// `path` opened for reading, in binary mode; when it cannot be, an input error
// "<what> <path>: cannot open: <the system's reason>" (`what` names the file's role: "config
// file", "image", ...; empty for none).
std::ifstream open_for_reading(const std::filesystem::path& path, const std::string& what = "");

// The whole file as bytes; an input error naming the file (after `what`, as above) and the
// system's reason when it cannot be opened or read.
std::string read_file(const std::filesystem::path& path, const std::string& what = "");

}  // namespace olv2
