#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

namespace olv2::test {

// Every record of the JSON-lines logs (`*.log.json`) in `work_dir`, run after run
// (the files in name order, which is the order the runs started in), each in file order.
std::vector<nlohmann::json> json_log_records(const std::filesystem::path& work_dir);

// The records of one `mode` ("train" or "val").
std::vector<nlohmann::json> json_log_records(const std::filesystem::path& work_dir,
                                             const std::string& mode);

}  // namespace olv2::test
