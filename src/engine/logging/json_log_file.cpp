#include "olv2/engine/logging/json_log_file.h"

#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"

namespace olv2 {

JsonLogFile::JsonLogFile(const std::filesystem::path& path)
    : path_(path), out_(path, std::ios::app) {
  if (!out_) {
    throw runtime_error(path.string() + ": cannot open the JSON log for writing: " +
                        system_reason());
  }
}

void JsonLogFile::write(const LogRecord& record) {
  out_ << record.to_json() << '\n';
  out_.flush();
}

}  // namespace olv2
