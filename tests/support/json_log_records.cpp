#include "support/json_log_records.h"

#include <fstream>
#include <string>

namespace olv2::test {

std::vector<nlohmann::json> json_log_records(const std::filesystem::path& work_dir) {
  std::vector<nlohmann::json> records;
  for (const auto& entry : std::filesystem::directory_iterator(work_dir)) {
    const std::string name = entry.path().filename().string();
    const std::string suffix = ".log.json";
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      std::ifstream in(entry.path());
      for (std::string line; std::getline(in, line);) {
        records.push_back(nlohmann::json::parse(line));
      }
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
