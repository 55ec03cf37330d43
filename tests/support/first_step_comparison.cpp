#include "support/first_step_comparison.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "olv2/util/pth/pth_file.h"
#include "olv2/util/state_dict.h"
#include "support/frame_pairs.h"
#include "support/json_log_records.h"

namespace olv2::test {

void expect_same_first_step(const std::filesystem::path& expected,
                            const std::filesystem::path& actual,
                            const std::vector<const char*>& keys, double weight_atol) {
  const nlohmann::json expected_record = json_log_records(expected, "train").at(0);
  const nlohmann::json actual_record = json_log_records(actual, "train").at(0);
  for (const char* key : keys) {
    const double value = expected_record.at(key).get<double>();
    EXPECT_NEAR(value, actual_record.at(key).get<double>(), sum_order_tolerance(value)) << key;
  }
  const NamedTensors expected_weights =
      tensors_of(read_pth(expected / "epoch_1.pth").at("state_dict"));
  const NamedTensors actual_weights = tensors_of(read_pth(actual / "epoch_1.pth").at("state_dict"));
  ASSERT_EQ(expected_weights.size(), actual_weights.size());
  for (size_t i = 0; i < expected_weights.size(); ++i) {
    if (!expected_weights[i].second.is_floating_point()) continue;
    const at::Tensor &a = expected_weights[i].second, &b = actual_weights[i].second;
    EXPECT_TRUE(a.allclose(b, 1e-4, weight_atol))
        << expected_weights[i].first << " max diff " << (a - b).abs().max().item<double>();
  }
}

}  // namespace olv2::test
