#include "olv2/util/logging.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <ctime>
#include <vector>

#include "olv2/util/error.h"
#include "olv2/util/platform.h"

namespace olv2 {

namespace {

// mmcv prints level names in capitals (INFO, WARNING, ERROR).
class UpperLevelFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& message, const std::tm&,
              spdlog::memory_buf_t& destination) override {
    static const char* const kNames[] = {"TRACE", "DEBUG",    "INFO", "WARNING",
                                         "ERROR", "CRITICAL", "OFF"};
    const std::string_view name = kNames[static_cast<int>(message.level)];
    destination.append(name.data(), name.data() + name.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<UpperLevelFlag>();
  }
};

}  // namespace

void setup_logging(const std::filesystem::path& log_file, bool is_main_rank) {
  std::vector<spdlog::sink_ptr> sinks;
  sinks.push_back(std::make_shared<spdlog::sinks::stdout_sink_mt>());
  if (!log_file.empty()) {
    try {
      sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(log_file.string(), true));
    } catch (const spdlog::spdlog_ex& error) {
      throw runtime_error(log_file.string() + ": cannot open log file: " + error.what());
    }
  }
  auto logger = std::make_shared<spdlog::logger>("olv2", sinks.begin(), sinks.end());
  // mmcv's format: 2026-11-29 15:10:02,123 - olv2 - INFO - message
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<UpperLevelFlag>('*').set_pattern("%Y-%m-%d %H:%M:%S,%e - %n - %* - %v");
  logger->set_formatter(std::move(formatter));
  logger->set_level(is_main_rank ? spdlog::level::info : spdlog::level::warn);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}

void log_final_error(const std::string& message) {
  const std::shared_ptr<spdlog::logger> logger = spdlog::default_logger();
  if (logger == nullptr) return;
  for (const spdlog::sink_ptr& sink : logger->sinks()) {
    if (std::dynamic_pointer_cast<spdlog::sinks::basic_file_sink_mt>(sink) == nullptr) continue;
    sink->log(spdlog::details::log_msg(logger->name(), spdlog::level::err, message));
    sink->flush();
  }
}

void set_log_level(const std::string& mmcv_level) {
  if (mmcv_level == "DEBUG") {
    spdlog::set_level(spdlog::level::debug);
  } else if (mmcv_level == "WARNING") {
    spdlog::set_level(spdlog::level::warn);
  } else if (mmcv_level == "ERROR") {
    spdlog::set_level(spdlog::level::err);
  } else {
    spdlog::set_level(spdlog::level::info);
  }
}

std::string log_timestamp() {
  const std::time_t now = std::time(nullptr);
  const std::tm local = platform::local_time(now);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y%m%d_%H%M%S", &local);
  return buffer;
}

}  // namespace olv2
