// Every case of the evaluation fixtures must score what the official evaluator gave, within 1e-6
// on every metric, per-threshold and per-attribute value (spec/evaluation.md §10). Cases are
// discovered by listing results/ and paired with expected/ by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "olv2/evaluation/evaluator.h"
#include "olv2/evaluation/ground_truth.h"
#include "olv2/evaluation/results_reader.h"
#include "support/run_command.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

// Acceptance tolerance of the official evaluator's numbers (float32 summation order only).
constexpr double kTolerance = 1e-6;

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot open " << path;
  return nlohmann::json::parse(in);
}

std::vector<fs::path> result_cases(const fs::path& root) {
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(root / "results")) {
    if (entry.path().extension() == ".json") cases.push_back(entry.path());
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

// Split names of the collection, in file order.
std::vector<std::string> collection_splits(const fs::path& collection) {
  std::ifstream in(collection);
  const nlohmann::ordered_json root = nlohmann::ordered_json::parse(in);
  std::vector<std::string> splits;
  for (const auto& item : root.items()) splits.push_back(item.key());
  return splits;
}

fs::path collection_file(const fs::path& root) {
  for (const auto& entry : fs::directory_iterator(root / "gt")) {
    if (entry.path().extension() == ".json") return entry.path();
  }
  return {};
}

// Ground truth of every split of the fixture collection, in collection order.
std::vector<FrameGroundTruth> fixture_ground_truth(const fs::path& root) {
  std::vector<FrameGroundTruth> frames;
  const fs::path collection = collection_file(root);
  for (const std::string& split : collection_splits(collection)) {
    for (FrameGroundTruth& frame : load_ground_truth(root / "gt", collection, split)) {
      frames.push_back(std::move(frame));
    }
  }
  return frames;
}

void expect_metrics_match(const nlohmann::json& actual, const nlohmann::json& expected) {
  for (const char* name : {"DET_l", "DET_t", "TOP_ll", "TOP_lt", "OLS"}) {
    EXPECT_NEAR(actual.at(name).get<double>(), expected.at(name).get<double>(), kTolerance) << name;
  }
  for (const char* group : {"DET_l_per_threshold", "DET_t_per_attribute"}) {
    ASSERT_EQ(actual.at(group).size(), expected.at(group).size()) << group;
    for (const auto& [key, value] : expected.at(group).items()) {
      ASSERT_TRUE(actual.at(group).contains(key)) << group << "." << key;
      EXPECT_NEAR(actual.at(group).at(key).get<double>(), value.get<double>(), kTolerance)
          << group << "." << key;
    }
  }
  EXPECT_EQ(actual.at("num_frames").get<long long>(), expected.at("num_frames").get<long long>());
}

TEST(EvaluationFixtures, EveryCaseMatchesTheOfficialEvaluator) {
  OLV2_REQUIRE_FIXTURE(root, "evaluation");
  const std::vector<FrameGroundTruth> ground_truth = fixture_ground_truth(root);
  std::vector<FrameId> frames;
  for (const FrameGroundTruth& frame : ground_truth) frames.push_back(frame.frame);

  const std::vector<fs::path> cases = result_cases(root);
  ASSERT_FALSE(cases.empty()) << "no results/*.json under " << root;
  for (const fs::path& results : cases) {
    SCOPED_TRACE("case " + results.stem().string());
    const EvaluationMetrics metrics = evaluate(ground_truth, read_results_file(results, frames));
    expect_metrics_match(metrics_to_json(metrics),
                         read_json(root / "expected" / results.filename()));
  }
}

TEST(EvaluationFixtures, GroundTruthKeepsEveryTwentiethLanePointOutsideTrain) {
  OLV2_REQUIRE_FIXTURE(root, "evaluation");
  const std::vector<FrameGroundTruth> ground_truth = fixture_ground_truth(root);
  ASSERT_FALSE(ground_truth.empty());
  for (const FrameGroundTruth& gt : ground_truth) {
    SCOPED_TRACE("frame " + gt.frame.key());
    const std::size_t interval = gt.frame.split == "train" ? 1 : 20;
    const nlohmann::json info = read_json(root / "gt" / gt.frame.split / gt.frame.segment_id /
                                          "info" / (gt.frame.timestamp + ".json"));
    const nlohmann::json& lanes = info.at("annotation").at("lane_centerline");
    ASSERT_EQ(gt.num_lanes(), lanes.size());
    for (std::size_t i = 0; i < lanes.size(); ++i) {
      const nlohmann::json& points = lanes[i].at("points");
      ASSERT_EQ(gt.lanes[i].size(), (points.size() + interval - 1) / interval);
      for (std::size_t k = 0; k < gt.lanes[i].size(); ++k) {
        for (std::size_t d = 0; d < 3; ++d) {
          EXPECT_EQ(gt.lanes[i][k][d], points[k * interval][d].get<float>());
        }
      }
    }
  }
}

TEST(EvaluationFixtures, EvaluateAppReproducesEveryCase) {
  OLV2_REQUIRE_FIXTURE(root, "evaluation");
  const fs::path scratch = test::scratch_dir("evaluate_app_fixtures");
  const fs::path collection = collection_file(root);
  for (const fs::path& results : result_cases(root)) {
    SCOPED_TRACE("case " + results.stem().string());
    for (const std::string& split : collection_splits(collection)) {
      const fs::path metrics_file = scratch / (results.stem().string() + "_" + split + ".json");
      const test::CommandResult run = test::run_app(
          "evaluate", "--data-root '" + (root / "gt").string() + "' --collection '" +
                          collection.string() + "' --split " + split + " --results '" +
                          results.string() + "' --out '" + metrics_file.string() + "'");
      ASSERT_EQ(run.exit_status, 0) << run.output;
      EXPECT_NE(run.output.find("OLS"), std::string::npos) << run.output;
      expect_metrics_match(read_json(metrics_file),
                           read_json(root / "expected" / results.filename()));
    }
  }
}

TEST(EvaluationFixtures, EvaluateAppExitsTwoNamingAMissingFrame) {
  OLV2_REQUIRE_FIXTURE(root, "evaluation");
  const fs::path collection = collection_file(root);
  const std::string split = collection_splits(collection).at(0);
  nlohmann::json results = read_json(result_cases(root).at(0));
  ASSERT_FALSE(results.at("results").empty());
  const std::string dropped = results.at("results").begin().key();
  results.at("results").erase(dropped);
  const fs::path broken = test::scratch_dir("evaluate_app_missing_frame") / "results.json";
  std::ofstream(broken) << results.dump();

  const test::CommandResult run =
      test::run_app("evaluate", "--data-root '" + (root / "gt").string() + "' --collection '" +
                                    collection.string() + "' --split " + split + " --results '" +
                                    broken.string() + "'");
  EXPECT_EQ(run.exit_status, 2) << run.output;
  EXPECT_NE(run.output.find("evaluate: error: "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find(dropped), std::string::npos) << run.output;
}

TEST(EvaluationFixtures, EvaluateAppExitsTwoOnBadInvocation) {
  const test::CommandResult run = test::run_app("evaluate", "--results");
  EXPECT_EQ(run.exit_status, 2) << run.output;
}

}  // namespace
}  // namespace olv2
