// Gradient accumulation: 2 micro-batches of 1 sample per step equal 1 micro-batch of 2 samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "support/frame_pairs.h"
#include "support/json_log_records.h"
#include "support/run_command.h"
#include "support/synthetic_dataset.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

using test::FrameRef;

fs::path dataset() {
  return test::synthetic_dataset("accumulation",
                                 "--frames 24 --val-frames 2 --image-scale 0.0625 --seed 11");
}

std::map<std::pair<size_t, size_t>, std::vector<FrameRef>> frames_by_counts() {
  return test::frames_by_counts(dataset());
}

using test::write_collection;

Json first_train_record(const fs::path& work_dir) {
  const std::vector<Json> records = test::json_log_records(work_dir, "train");
  return records.empty() ? Json() : records.front();
}

// One optimizer step over the two frames of `collection` with the given batch shape.
Json one_step(const fs::path& meta_root, const std::string& tag, int samples_per_gpu,
              int accumulation) {
  const fs::path work_dir = test::scratch_dir(tag);
  const std::string args =
      (test::source_dir() / "configs/tests/tiny.yaml").string() + " --work-dir '" +
      work_dir.string() + "' --no-validate --cfg-options data_root='" + dataset().string() +
      "' meta_root='" + meta_root.string() +
      "' data.train.collection=pair_train runner.max_epochs=1 data.samples_per_gpu=" +
      std::to_string(samples_per_gpu) +
      " data.gradient_accumulation_steps=" + std::to_string(accumulation) +
      " model.img_backbone.norm_eval=true model.lc_head.dropout=0.0 model.lc_head.ffn_dropout=0.0"
      " model.te_head.dropout=0.0 model.te_head.ffn_dropout=0.0";
  const auto result = test::run_app("train_ds", args);
  EXPECT_EQ(result.exit_status, 0) << result.output;
  return first_train_record(work_dir);
}

double tolerance(double value) { return test::sum_order_tolerance(value); }

TEST(GradientAccumulation, TwoStepsOfOneEqualOneStepOfTwoForFramesWithEqualCounts) {
  const auto groups = frames_by_counts();
  const std::vector<FrameRef>* pair = nullptr;
  for (const auto& [counts, frames] : groups) {
    if (frames.size() >= 2 && (pair == nullptr || counts.second > 0)) pair = &frames;
  }
  ASSERT_NE(pair, nullptr) << "the synthetic set has no two frames with equal counts";
  const fs::path meta_root = test::scratch_dir("equal_meta");
  write_collection(meta_root / "pair.json", {(*pair)[0], (*pair)[1]});

  const Json together = one_step(meta_root, "equal_2x1", 2, 1);
  const Json accumulated = one_step(meta_root, "equal_1x2", 1, 2);
  ASSERT_FALSE(together.is_null());
  ASSERT_FALSE(accumulated.is_null());
  for (const char* key :
       {"loss", "grad_norm", "lc_loss_cls", "lc_loss_bbox", "topology_lclc_loss_cls"}) {
    const double value = together[key].get<double>();
    EXPECT_NEAR(value, accumulated[key].get<double>(), tolerance(value)) << key;
  }
}

// DETR losses are normalised by the positives of the whole batch, so with different counts the
// two ways of batching weigh the frames differently.
TEST(GradientAccumulation, DiffersWhenTheFramesHaveDifferentCounts) {
  const auto groups = frames_by_counts();
  ASSERT_GE(groups.size(), 2u);
  const FrameRef first = groups.begin()->second.front();
  const FrameRef second = std::prev(groups.end())->second.front();
  const fs::path meta_root = test::scratch_dir("different_meta");
  write_collection(meta_root / "pair.json", {first, second});

  const Json together = one_step(meta_root, "different_2x1", 2, 1);
  const Json accumulated = one_step(meta_root, "different_1x2", 1, 2);
  ASSERT_FALSE(together.is_null());
  ASSERT_FALSE(accumulated.is_null());
  EXPECT_GT(std::abs(together["loss"].get<double>() - accumulated["loss"].get<double>()), 1e-3);
}

}  // namespace
}  // namespace olv2
