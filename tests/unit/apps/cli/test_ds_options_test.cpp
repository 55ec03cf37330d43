#include "cli/test_ds_options.h"

#include <gtest/gtest.h>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

InferenceOptions parse_test_ds(std::vector<const char*> args) {
  args.insert(args.begin(), "test_ds");
  auto options = parse_inference_options(static_cast<int>(args.size()), args.data());
  EXPECT_TRUE(options.has_value());
  return *options;
}

TEST(InferenceOptions, BareEvalScoresEveryMetric) {
  const InferenceOptions options = parse_test_ds({"c.yaml", "e.pth", "--eval"});
  EXPECT_TRUE(options.eval);
  EXPECT_TRUE(options.eval_metrics.empty());
  EXPECT_FALSE(parse_test_ds({"c.yaml", "e.pth", "--out", "s.pkl"}).eval);
}

// mmdet's `--eval bbox` habit: metric names after --eval, the next flag ending them.
TEST(InferenceOptions, EvalTakesMetricNames) {
  const InferenceOptions options =
      parse_test_ds({"c.yaml", "e.pth", "--eval", "OLS", "TOP_ll", "--results_out", "r.json"});
  EXPECT_TRUE(options.eval);
  EXPECT_EQ(options.eval_metrics, (std::vector<std::string>{"OLS", "TOP_ll"}));
  EXPECT_EQ(options.results_out, "r.json");
  EXPECT_EQ(options.work_dir, "work_dirs/c");
}

TEST(InferenceOptions, AnUnknownMetricIsABadInvocationListingTheNames) {
  const char* args[] = {"test_ds", "c.yaml", "e.pth", "--eval", "bbox_mAP"};
  try {
    parse_inference_options(5, args);
    ADD_FAILURE() << "accepted --eval bbox_mAP";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    const std::string message = error.what();
    EXPECT_NE(message.find("bbox_mAP"), std::string::npos) << message;
    EXPECT_NE(message.find("TOP_lt"), std::string::npos) << message;
  }
}

// mmdet's --gpus is answered with the launcher that starts one process per GPU.
TEST(InferenceOptions, GpusIsAnsweredWithDistTest) {
  const char* args[] = {"test_ds", "c.yaml", "e.pth", "--eval", "--gpus", "8"};
  try {
    parse_inference_options(6, args);
    ADD_FAILURE() << "accepted --gpus 8";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    EXPECT_NE(std::string(error.what()).find("scripts/dist_test.sh CONFIG CHECKPOINT N"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace olv2
