#include "support/loss_scaler_table.h"

#include <fstream>
#include <sstream>

namespace olv2::test {

nlohmann::json read_loss_scaler_table(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::string replay_loss_scaler_table(LossScaler& scaler, const nlohmann::json& table,
                                     const std::string& variant_name) {
  const nlohmann::json& variant = table.at("variants").at(variant_name);
  const nlohmann::json& overflow = table.at("overflow");
  const bool has_hysteresis = variant.contains("hysteresis_after");
  const auto* dynamic = dynamic_cast<const DynamicLossScaler*>(&scaler);
  if (has_hysteresis && dynamic == nullptr) {
    return variant_name + " records hysteresis, which only DynamicLossScaler has";
  }
  std::ostringstream first;
  size_t mismatches = 0;
  int64_t skipped = 0;
  for (size_t t = 0; t < overflow.size(); ++t) {
    const double used = scaler.scale();
    scaler.update(overflow[t].get<int>() != 0);
    skipped += variant.at("skipped")[t].get<int64_t>();
    bool same = used == variant.at("scale_used")[t].get<double>() &&
                scaler.scale() == variant.at("scale_after")[t].get<double>() &&
                scaler.skipped_steps() == skipped;
    if (has_hysteresis) {
      same = same && dynamic->hysteresis_left() == variant.at("hysteresis_after")[t].get<int64_t>();
    }
    if (!same && mismatches++ < 5) {
      first << "; step " << t << ": scale used " << used << ", after " << scaler.scale()
            << ", skipped " << scaler.skipped_steps();
      if (has_hysteresis) first << ", hysteresis " << dynamic->hysteresis_left();
    }
  }
  if (mismatches == 0) return "";
  return std::to_string(mismatches) + " of " + std::to_string(overflow.size()) + " steps differ" +
         first.str();
}

}  // namespace olv2::test
