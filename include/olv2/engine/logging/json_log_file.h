#pragma once
// The `.log.json` file of a run: one JSON record per line, as mmcv writes it.
#include <filesystem>
#include <fstream>

#include "olv2/engine/logging/train_log.h"

namespace olv2 {

// `<work_dir>/<timestamp>.log.json`: one JSON object per line, flushed after each, as mmcv's
// TextLoggerHook writes it.
class JsonLogFile {
 public:
  explicit JsonLogFile(const std::filesystem::path& path);
  void write(const LogRecord& record);
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::ofstream out_;
};

}  // namespace olv2
