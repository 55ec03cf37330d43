#pragma once
// The console and `.log` file logging of every app, with mmcv's levels and timestamps.
#include <spdlog/spdlog.h>

#include <filesystem>
#include <string>

namespace olv2 {

// Console plus, when `log_file` is not empty, a plain-text file with the same lines. Replaces
// spdlog's default logger, so `spdlog::info(...)` anywhere goes to both. Ranks other than 0
// log warnings and errors only.
void setup_logging(const std::filesystem::path& log_file, bool is_main_rank = true);

// Writes `message` as an ERROR line to the `.log` file of setup_logging, if there is one, and
// not to the console: for the error that ends a program, which the console already shows.
void log_final_error(const std::string& message);

// Sets the level from mmcv's names (DEBUG, INFO, WARNING, ERROR).
void set_log_level(const std::string& mmcv_level);

// mmcv's timestamp for file names: 20261129_151002.
std::string log_timestamp();

}  // namespace olv2
