#pragma once
// The three fixture models (configs/fixtures/) with weights that need no file beside the
// checkout, as a GPU machine builds them: the baselines with the weights seed 0 gives, TopoNet
// with its heads' formula weights (toponet_fixture.h) and, in place of the baseline_large
// fixture's, the backbone, neck and BEV constructor seed 0 gives. Their inputs are the
// fixtures' (baseline_input.pt and baseline_large_input.pt, which the GPU bundle carries) and
// TopoNet's frame 0 from tests/data.
#include <torch/torch.h>

#include <memory>
#include <string>

#include "large_model_fixture.h"
#include "model_fixture.h"
#include "olv2/config/config_loader.h"
#include "olv2/models/detectors/baseline.h"
#include "olv2/models/detectors/baseline_large.h"
#include "olv2/models/detectors/toponet.h"
#include "olv2/util/state_dict.h"
#include "support/replayed_matchings.h"
#include "support/test_paths.h"
#include "toponet_fixture.h"

namespace olv2::test {

inline BaselineOptions baseline_fixture_options() {
  return BaselineOptions::from_config(
      load_config_file(source_dir() / "configs/fixtures/baseline.yaml").at("model"));
}

inline BaselineLargeOptions baseline_large_fixture_options() {
  return BaselineLargeOptions::from_config(large_reduced_model_config());
}

// The model of `options` with the weights seed 0 gives.
template <typename Model, typename Options>
std::shared_ptr<Model> seeded_model(const Options& options) {
  torch::manual_seed(0);
  return std::make_shared<Model>(options);
}

inline std::shared_ptr<TopoNetImpl> seeded_toponet(const TopoNetOptions& options) {
  NamedTensors seeded;
  for (const auto& [name, tensor] : module_state_dict(*seeded_model<TopoNetImpl>(options))) {
    seeded.emplace_back(name, tensor.clone());
  }
  return toponet_fixture_model(seeded, options);
}

// A fixture input file's frame with its ground truth.
inline Batch fixture_input(const std::filesystem::path& input_path) {
  return fixture_batch(load_tensor_dict(input_path), /*with_gt=*/true);
}

enum class FixtureModel { kBaseline, kBaselineLarge, kTopoNet };

inline std::string name_of(FixtureModel model) {
  switch (model) {
    case FixtureModel::kBaseline:
      return "Baseline";
    case FixtureModel::kBaselineLarge:
      return "BaselineLarge";
    case FixtureModel::kTopoNet:
      return "TopoNet";
  }
  return "?";
}

// A fresh `model` with its seeded weights, its heads recording their matchings into `log` or
// replaying them from it.
inline std::shared_ptr<DetectorImpl> seeded_fixture_model(FixtureModel model, Matchings mode,
                                                          const std::shared_ptr<MatchingLog>& log) {
  switch (model) {
    case FixtureModel::kBaseline:
      return seeded_model<BaselineImpl>(with_matchings(baseline_fixture_options(), mode, log));
    case FixtureModel::kBaselineLarge:
      return seeded_model<BaselineLargeImpl>(
          with_matchings(baseline_large_fixture_options(), mode, log));
    case FixtureModel::kTopoNet:
      return seeded_toponet(with_matchings(toponet_fixture_options(), mode, log));
  }
  return nullptr;
}

}  // namespace olv2::test
