#pragma once
// The validation results files of a work dir: their names, and how many of them stay.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace olv2 {

// `results_epoch_<k>.json`: the results file of the validation after k epochs.
std::filesystem::path results_file_of(const std::filesystem::path& work_dir, int64_t epoch);

// After the results file of `epoch` is written: removes the work dir's older results files but
// the `keep` latest (counting `epoch`'s) and the one of `kept_epoch`, if any; never a file of a
// later epoch (left by an earlier run). `keep` <= 0 keeps all. Returns how many were removed.
int64_t remove_old_results(const std::filesystem::path& work_dir, int64_t epoch, int64_t keep,
                           std::optional<int64_t> kept_epoch);

}  // namespace olv2
