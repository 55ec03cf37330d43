#include "support/first_step_comparison.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "olv2/util/pth/pth_file.h"
#include "support/json_log_records.h"
#include "support/step_comparison.h"

namespace olv2::test {
namespace {

// The AdamW first moments of checkpoint `file`, named "parameter <index>".
StepResult first_moments(const std::filesystem::path& file) {
  StepResult moments;
  const PthValue checkpoint = read_pth(file / "epoch_1.pth");
  for (const auto& [index, state] : checkpoint.at("optimizer").at("state").dict_items()) {
    moments.grads["parameter " + std::to_string(index.as_int())] = state.at("exp_avg").as_tensor();
  }
  return moments;
}

}  // namespace

void expect_same_first_step(const std::filesystem::path& expected,
                            const std::filesystem::path& actual,
                            const std::vector<const char*>& keys,
                            const FirstStepTolerances& tolerances) {
  const nlohmann::json expected_record = json_log_records(expected, "train").at(0);
  const nlohmann::json actual_record = json_log_records(actual, "train").at(0);
  for (const char* key : keys) {
    const double value = expected_record.at(key).get<double>();
    EXPECT_NEAR(value, actual_record.at(key).get<double>(),
                std::max(1e-5 + 1e-9, tolerances.logged * std::abs(value)))
        << key;
  }
  const Comparison moments = compare_gradients(first_moments(actual), first_moments(expected),
                                               "first moments (0.1 x the gradients)");
  for (const std::string& failure : moments.failures(tolerances.gradients)) {
    ADD_FAILURE() << failure;
  }
  std::printf("%s", moments.worst(3).c_str());
}

}  // namespace olv2::test
