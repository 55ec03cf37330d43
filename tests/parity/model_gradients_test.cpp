// Per-parameter gradients of one Baseline training step against the original's, for one frame
// and for two frames in one batch. The goldens (tests/data/gradients/, written by
// scripts/make_gradient_goldens.sh from the original stack; the set for this CPU's kernels:
// support/baseline_gradient_records.h) keep large tensors as slice norms and a fixed sample;
// ranks are compared by the e2e test of probe_model.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <set>
#include <string>
#include <vector>

#include "model_fixture.h"
#include "olv2/data/fixture_sample.h"
#include "olv2/models/gradient_record.h"
#include "olv2/util/pth/pth_file.h"
#include "support/baseline_gradient_records.h"
#include "support/gradient_tolerance.h"
#include "support/test_paths.h"

namespace olv2::test {
namespace {

namespace fs = std::filesystem;

fs::path input_frames() { return source_dir() / "tests/data/gradients/two_frames.pt"; }

// The first DETR decoder layer's query self-attention has a gradient that is mathematically
// zero in both heads (every value is the same bias), which the records show as float noise.
const std::set<std::string> kZeroInTheOriginal = {
    "lc_head.transformer.decoder.layers.0.attentions.0.attn.in_proj_weight",
    "te_head.transformer.decoder.layers.0.attentions.0.attn.in_proj_weight"};

// Every gradient within the records' tolerance (1e-5 on PyTorch's LibTorch and an AVX-512 CPU)
// relative of the original's record `name`; the ones zero there are the two above. Returns how
// many were compared.
size_t expect_gradients_as_original(const NamedTensors& ours, const std::string& name) {
  const BaselineGradientRecords records = baseline_gradient_records();
  return expect_gradient_parity(ours, records.dir / name, kZeroInTheOriginal, records.tolerance);
}

class ModelGradients : public ::testing::Test {
 protected:
  void SetUp() override {
    OLV2_REQUIRE_FIXTURE(json_path, "baseline_losses.json");
    OLV2_REQUIRE_FIXTURE(state_path, "baseline_state_dict.pt");
    fixture_ = read_model_fixture(json_path);
  }

  // One step as train_ds's first: train mode, dropout 0, backward of the summed losses.
  NamedTensors gradients(const std::vector<int64_t>& frames) {
    auto model = fixture_model(fixture_.losses, fixture_.state);
    model->train();
    model->set_dropout(0.0);
    const Batch batch = read_fixture_batch(input_frames(), /*with_gt=*/true, frames);
    total_loss(model->forward_train(batch)).backward();
    return gradient_record(*model);
  }

  ModelFixture fixture_;
};

TEST_F(ModelGradients, OneFrameEqualsTheOriginalPerTensor) {
  const NamedTensors ours = gradients({0});
  EXPECT_EQ(ours.size(), 166u);
  EXPECT_EQ(expect_gradients_as_original(ours, "original_one_frame.pt"), 164u);
}

TEST_F(ModelGradients, BatchOfTwoFramesEqualsTheOriginalPerTensor) {
  const NamedTensors ours = gradients({});
  EXPECT_EQ(expect_gradients_as_original(ours, "original_batch_two.pt"), 164u);
}

}  // namespace
}  // namespace olv2::test
