#include "support/json_log_records.h"

#include <algorithm>
#include <fstream>
#include <string>

namespace olv2::test {

std::vector<nlohmann::json> json_log_records(const std::filesystem::path& work_dir) {
  // A directory lists its files in no particular order; the names are the runs' start times.
  std::vector<std::filesystem::path> logs;
  for (const auto& entry : std::filesystem::directory_iterator(work_dir)) {
    const std::string name = entry.path().filename().string();
    const std::string suffix = ".log.json";
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      logs.push_back(entry.path());
    }
  }
  std::sort(logs.begin(), logs.end());
  std::vector<nlohmann::json> records;
  for (const std::filesystem::path& log : logs) {
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);) {
      records.push_back(nlohmann::json::parse(line));
    }
  }
  return records;
}

std::vector<nlohmann::json> json_log_records(const std::filesystem::path& work_dir,
                                             const std::string& mode) {
  std::vector<nlohmann::json> selected;
  for (nlohmann::json& record : json_log_records(work_dir)) {
    if (record.value("mode", "") == mode) selected.push_back(std::move(record));
  }
  return selected;
}

}  // namespace olv2::test
