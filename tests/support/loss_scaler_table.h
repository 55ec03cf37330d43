#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "olv2/engine/precision/dynamic_loss_scaler.h"
#include "olv2/engine/precision/loss_scaler.h"

namespace olv2::test {

// The golden table of DeepSpeed's loss scalers (fixtures engine/deepspeed_loss_scaler.json).
nlohmann::json read_loss_scaler_table(const std::filesystem::path& path);

// Drives `scaler` through the table's overflow pattern and compares every step with `variant`:
// scale_used, scale_after, the running count of skipped steps and, where the variant records
// it, the hysteresis left (DynamicLossScaler only). Returns "" when all steps match, else the
// number of mismatching steps and the first few.
std::string replay_loss_scaler_table(LossScaler& scaler, const nlohmann::json& table,
                                     const std::string& variant);

}  // namespace olv2::test
