// Baseline backbone, neck and IPM against the original: state-dict names and order, and the
// module-boundary tensors of the train and test passes.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "model_fixture.h"
#include "olv2/util/autocast_guard.h"
#include "olv2/util/compat.h"
#include "olv2/util/state_dict.h"
#include "support/test_paths.h"

namespace olv2::test {
namespace {

// Like expect_close, but tolerates isolated IPM border-mask flips (README): at most
// `max_fraction` of the elements may exceed the tolerance.
void expect_close_but_isolated(const at::Tensor& actual, const at::Tensor& reference,
                               const std::string& name, double max_fraction) {
  ASSERT_EQ(actual.sizes(), reference.sizes()) << name;
  const at::Tensor a = actual.detach().to(torch::kDouble);
  const at::Tensor r = reference.detach().to(torch::kDouble);
  const double scale = std::max(1.0, r.abs().max().item<double>());
  const at::Tensor outside = ((a - r).abs() > kParityOutputTolerance * (scale + r.abs()));
  const double fraction = outside.to(torch::kDouble).mean().item<double>();
  EXPECT_LE(fraction, max_fraction)
      << name << ": " << outside.sum().item<int64_t>() << " elements outside the tolerance";
}

CustomIpmViewTransformerImpl& ipm(const BaselineImpl& model) {
  return dynamic_cast<CustomIpmViewTransformerImpl&>(*model.bev_constructor());
}

class ModelFeatures : public ::testing::Test {
 protected:
  void SetUp() override {
    OLV2_REQUIRE_FIXTURE(json_path, "baseline_losses.json");
    fixture_ = read_model_fixture(json_path);
    model_ = fixture_model(fixture_.losses, fixture_.state);
    batch_ = fixture_batch(fixture_.input, /*with_gt=*/false);
  }

  // Backbone, neck and IPM in the current mode, compared with the `prefix` entries.
  void check_features(const std::string& prefix, bool full_bev) {
    torch::NoGradGuard no_grad;
    const at::Tensor& img = batch_.images;
    const at::Tensor x = img.view({-1, img.size(2), img.size(3), img.size(4)});
    const std::vector<at::Tensor> stages = model_->img_backbone()->forward(x);
    for (size_t i = 0; i < stages.size(); ++i) {
      const std::string key = prefix + "img_backbone." + std::to_string(i);
      expect_close(stages[i], at_key(fixture_.intermediates, key), key);
    }
    const at::Tensor features = model_->img_neck()->forward(stages).front();
    expect_close(features, at_key(fixture_.intermediates, prefix + "img_neck"),
                 prefix + "img_neck");

    const auto& shape = batch_.metas[0].img_shape[0];
    const at::Tensor bev =
        ipm(*model_).forward(features, batch_.lidar2img.to(torch::kFloat), {shape[0], shape[1]});
    const std::string key = prefix + "img_view_transformer";
    if (full_bev) {
      expect_close_but_isolated(bev, at_key(fixture_.intermediates, key), key, 1e-3);
    } else {
      expect_summaries_close(bev, fixture_.intermediates, key);
    }
  }

  ModelFixture fixture_;
  std::shared_ptr<BaselineImpl> model_;
  Batch batch_;
};

TEST_F(ModelFeatures, StateDictKeysShapesAndOrderEqualTheOriginal) {
  const NamedTensors ours = module_state_dict(*model_);
  ASSERT_EQ(ours.size(), fixture_.state.size());
  for (size_t i = 0; i < ours.size(); ++i) {
    EXPECT_EQ(ours[i].first, fixture_.state[i].first) << "entry " << i;
    EXPECT_EQ(ours[i].second.sizes(), fixture_.state[i].second.sizes()) << ours[i].first;
    EXPECT_EQ(ours[i].second.scalar_type(), fixture_.state[i].second.scalar_type())
        << ours[i].first;
  }
}

TEST_F(ModelFeatures, GridBufferIsBuiltAsTheOriginal) {
  // A freshly built model computes the IPM grid itself; it must equal the saved buffer.
  BaselineImpl fresh(fixture_model_options(fixture_.losses));
  const auto state = load_tensor_dict(fixture_.dir / "baseline_state_dict.pt");
  const at::Tensor saved = at_key(state, "img_view_transformer.bev_planes");
  const at::Tensor ours = ipm(fresh).bev_planes();
#if OLV2_TORCH_AT_LEAST(2, 0)
  // The fixture holds torch 1.13's linspace. Since 2.0 torch.linspace fills the second half
  // from the end point, which moves points by up to 2 float32 ulps of the range's end (measured:
  // 5.0e-6 m over x in [-50, 50] m, 1.9e-6 m over y in [-25, 25] m); the original computes its
  // grid with the same torch.linspace, so on 2.x it moves the same way.
  EXPECT_LE((ours - saved).abs().max().item<double>(), 2 * std::ldexp(1.0, -23) * 64)
      << "2 float32 ulps at 50 m";
#else
  EXPECT_TRUE(torch::equal(ours, saved));
#endif
}

TEST_F(ModelFeatures, TestPassMatchesTheOriginal) {
  model_->eval();
  check_features("test.", /*full_bev=*/true);
}

TEST_F(ModelFeatures, TrainPassMatchesTheOriginal) {
  model_->train();
  check_features("train.", /*full_bev=*/false);
}

TEST_F(ModelFeatures, IpmUnderBf16AutocastProjectsInFp32) {
  // Only the output convolutions may run in bf16: the projection stays fp32, so every BEV cell
  // samples the same pixels as without autocast. An IPM as the model's on a grid of 4 m (a
  // sixteenth of the cells: bf16 is emulated on a CPU without bf16 instructions) whose convolutions
  // copy one input channel each (centre tap 1, every other weight 0), so that their bf16 result is
  // their input rounded to bf16 whatever the precision of the sums: Debian's LibTorch 1.13 on a
  // CPU without AVX-512 sums a bf16 convolution in bf16.
  torch::NoGradGuard no_grad;
  model_->eval();
  CustomIpmViewTransformerOptions options;
  options.xbound[2] = 4.0;
  options.ybound[2] = 4.0;
  CustomIpmViewTransformer coarse(options);
  for (auto& item : coarse->named_parameters()) {
    at::Tensor& parameter = item.value();
    parameter.zero_();
    if (item.key() == "outconvs.weight") {
      for (int64_t out = 0; out < parameter.size(0); ++out)
        parameter[out][out % parameter.size(1)][1][1] = 1.0;
    }
  }
  const at::Tensor& img = batch_.images;
  const at::Tensor features = model_->img_neck()
                                  ->forward(model_->img_backbone()->forward(
                                      img.view({-1, img.size(2), img.size(3), img.size(4)})))
                                  .front();
  const auto& shape = batch_.metas[0].img_shape[0];
  const at::Tensor lidar2img = batch_.lidar2img.to(torch::kFloat);
  const at::Tensor fp32 = coarse->forward(features, lidar2img, {shape[0], shape[1]});
  at::Tensor bf16;
  {
    const AutocastGuard autocast(c10::kCPU, AutocastState{true, c10::ScalarType::BFloat16});
    bf16 = coarse->forward(features, lidar2img, {shape[0], shape[1]});
  }
  ASSERT_TRUE(torch::isfinite(bf16).all().item<bool>());
  const double scale = fp32.abs().max().item<double>();
  EXPECT_LT((bf16.to(torch::kFloat) - fp32).abs().max().item<double>(), 0.01 * scale);
}

}  // namespace
}  // namespace olv2::test
