#pragma once
// Shared by the BaselineLarge model tests: the reduced fixture model built from
// configs/fixtures/baseline_large_reduced.yaml through the real config builder, with the
// fixture's weights, and the fixture input as a Batch.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "model_fixture.h"
#include "olv2/config/config_loader.h"
#include "olv2/models/build.h"
#include "olv2/models/detectors/baseline_large.h"
#include "olv2/util/state_dict.h"
#include "support/test_paths.h"

namespace olv2::test {

inline ConfigNode large_reduced_model_config() {
  return load_config_file(source_dir() / "configs/fixtures/baseline_large_reduced.yaml")
      .at("model");
}

inline std::shared_ptr<BaselineLargeImpl> large_fixture_model(const NamedTensors& state,
                                                              BaselineLargeOptions options) {
  auto model = std::make_shared<BaselineLargeImpl>(options);
  load_state_dict(*model, state);
  return model;
}

inline std::shared_ptr<BaselineLargeImpl> large_fixture_model(const NamedTensors& state) {
  return large_fixture_model(state,
                             BaselineLargeOptions::from_config(large_reduced_model_config()));
}

}  // namespace olv2::test
