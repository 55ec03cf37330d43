// Both models on a GPU against the same step on the CPU, fp32 with TF32 off: every loss term
// and every parameter's gradient, on the golden fixtures' inputs; then an fp16 autocast step
// against fp32 on the GPU. Each comparison prints its five largest differences, pass or fail.
#include <ATen/Context.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "olv2/util/autocast_guard.h"
#include "parity/large_model_fixture.h"
#include "parity/model_fixture.h"
#include "support/cuda_requirement.h"
#include "support/step_comparison.h"

namespace olv2::test {
namespace {

const c10::Device kGpu(c10::kCUDA, 0);

// Matrix products and convolutions in true fp32 on the GPU, as on the CPU.
class NoTf32 {
 public:
  NoTf32()
      : cublas_(at::globalContext().allowTF32CuBLAS()),
        cudnn_(at::globalContext().allowTF32CuDNN()) {
    at::globalContext().setAllowTF32CuBLAS(false);
    at::globalContext().setAllowTF32CuDNN(false);
  }
  ~NoTf32() {
    at::globalContext().setAllowTF32CuBLAS(cublas_);
    at::globalContext().setAllowTF32CuDNN(cudnn_);
  }

 private:
  bool cublas_;
  bool cudnn_;
};

// One training step of `model` on `batch` (train mode, dropout 0, backward of the total loss)
// on `device`, with `autocast` for that device.
template <typename Model>
StepResult train_step(Model& model, const Batch& batch, const c10::Device& device,
                      AutocastState autocast = {}) {
  model.to(device);
  model.train();
  model.set_dropout(0.0);
  model.zero_grad();
  const Batch on_device = batch.to(device, /*non_blocking=*/false);
  StepResult result;
  LossMap losses;
  {
    const AutocastGuard guard(device.type(), autocast);
    losses = model.forward_train(on_device);
  }
  total_loss(losses).backward();
  for (const auto& [name, value] : losses) result.losses[name] = value.template item<double>();
  for (const auto& item : model.named_parameters()) {
    if (item.value().grad().defined()) result.grads[item.key()] = item.value().grad().cpu();
  }
  return result;
}

// Prints a comparison's worst entries, pass or fail (the GPU check's log keeps them), and
// fails the test for each entry over `tolerance`.
void expect_within(const Comparison& comparison, double tolerance) {
  std::printf("%s", comparison.worst().c_str());
  std::fflush(stdout);
  for (const std::string& failure : comparison.failures(tolerance)) ADD_FAILURE() << failure;
}

void expect_same_step(const StepResult& gpu, const StepResult& cpu, double tolerance,
                      const std::string& model) {
  expect_within(compare_losses(gpu, cpu, model + ": loss terms, GPU against CPU"), tolerance);
  expect_within(compare_gradients(gpu, cpu, model + ": gradients, GPU against CPU"), tolerance);
}

// fp16 autocast against fp32 from the same weights. The Hungarian matchings are recomputed
// from each run's own predictions, and on fresh weights near-equal costs are common: one
// flipped match moves its terms by far more than fp16's rounding, so the terms are printed but
// only the total is held to a tolerance (5 %: the costs of the two matchings are nearly equal
// when a match flips, while a broken fp16 path, an overflow or a kernel computing in the wrong
// type, moves it by much more), and every term and gradient must be finite.
void expect_fp16_close_to_fp32(const StepResult& fp16, const StepResult& fp32,
                               const std::string& model) {
  const Comparison terms = compare_losses(
      fp16, fp32, model + ": loss terms, fp16 autocast against fp32 (shown only)", 1e-2);
  std::printf("%s", terms.worst().c_str());
  double total16 = 0.0, total32 = 0.0;
  for (const auto& [name, expected] : fp32.losses) {
    const double actual = fp16.losses.at(name);
    EXPECT_TRUE(std::isfinite(actual)) << name << " is " << actual << " under fp16";
    total16 += actual;
    total32 += expected;
  }
  std::printf("%s: total loss fp16 %.6f, fp32 %.6f, relative difference %.3e\n", model.c_str(),
              total16, total32, std::abs(total16 - total32) / std::abs(total32));
  EXPECT_NEAR(total16, total32, 5e-2 * std::abs(total32)) << "total loss";
  int64_t not_finite = 0;
  for (const auto& [name, grad] : fp16.grads) {
    if (!grad.isfinite().all().item<bool>()) {
      ADD_FAILURE() << name << ": a gradient that is not finite under fp16";
      ++not_finite;
    }
  }
  std::printf("%s: %zu fp16 gradients, %lld not finite\n", model.c_str(), fp16.grads.size(),
              static_cast<long long>(not_finite));
  std::fflush(stdout);
}

// The fixture's input with GT and the model of `config` (under configs/fixtures/) with the
// weights seed 0 gives it: only the inputs travel to a GPU machine, not the fixture weights.
template <typename Model, typename Options>
std::shared_ptr<Model> seeded_model(const std::string& config,
                                    Options (*options_from_config)(const ConfigNode&)) {
  torch::manual_seed(0);
  return std::make_shared<Model>(options_from_config(
      load_config_file(source_dir() / "configs/fixtures" / config).at("model")));
}

Batch fixture_input(const std::filesystem::path& input_path) {
  return fixture_batch(load_tensor_dict(input_path), /*with_gt=*/true);
}

TEST(ModelsOnCuda, BaselineLossesAndGradientsEqualTheCpu) {
  OLV2_REQUIRE_CUDA();
  OLV2_REQUIRE_FIXTURE(input_path, "baseline_input.pt");
  const Batch batch = fixture_input(input_path);
  const NoTf32 no_tf32;
  const auto model = [] {
    return seeded_model<BaselineImpl>("baseline.yaml", BaselineOptions::from_config);
  };
  const StepResult cpu = train_step(*model(), batch, c10::Device(c10::kCPU));
  const StepResult gpu = train_step(*model(), batch, kGpu);
  expect_same_step(gpu, cpu, 1e-4, "Baseline");
}

TEST(ModelsOnCuda, BaselineLargeLossesAndGradientsEqualTheCpu) {
  OLV2_REQUIRE_CUDA();
  OLV2_REQUIRE_FIXTURE(input_path, "baseline_large_input.pt");
  const Batch batch = fixture_input(input_path);
  const NoTf32 no_tf32;
  const auto model = [] {
    return seeded_model<BaselineLargeImpl>("baseline_large_reduced.yaml",
                                           BaselineLargeOptions::from_config);
  };
  const StepResult cpu = train_step(*model(), batch, c10::Device(c10::kCPU));
  const StepResult gpu = train_step(*model(), batch, kGpu);
  expect_same_step(gpu, cpu, 1e-4, "BaselineLarge");
}

// An fp16 autocast step of `make_model()`'s model against fp32, both on the GPU.
template <typename MakeModel>
void expect_fp16_step_close_to_fp32(MakeModel make_model, const Batch& batch,
                                    const std::string& model) {
  const StepResult fp32 = train_step(*make_model(), batch, kGpu);
  const StepResult fp16 =
      train_step(*make_model(), batch, kGpu, AutocastState{true, c10::ScalarType::Half});
  expect_fp16_close_to_fp32(fp16, fp32, model);
}

TEST(ModelsOnCuda, AnFp16AutocastStepIsFiniteWithATotalLossCloseToFp32) {
  OLV2_REQUIRE_CUDA();
  OLV2_REQUIRE_FIXTURE(input_path, "baseline_input.pt");
  OLV2_REQUIRE_FIXTURE(large_input_path, "baseline_large_input.pt");
  expect_fp16_step_close_to_fp32(
      [] { return seeded_model<BaselineImpl>("baseline.yaml", BaselineOptions::from_config); },
      fixture_input(input_path), "Baseline");
  expect_fp16_step_close_to_fp32(
      [] {
        return seeded_model<BaselineLargeImpl>("baseline_large_reduced.yaml",
                                               BaselineLargeOptions::from_config);
      },
      fixture_input(large_input_path), "BaselineLarge");
}

}  // namespace
}  // namespace olv2::test
