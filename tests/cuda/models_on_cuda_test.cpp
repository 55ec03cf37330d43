// Both models on a GPU against the same step on the CPU, fp32 with TF32 off: every loss term
// and every parameter's gradient, on the golden fixtures' inputs; then an fp16 autocast step
// against fp32 on the GPU.
#include <ATen/Context.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <map>
#include <string>

#include "olv2/util/autocast_guard.h"
#include "parity/large_model_fixture.h"
#include "parity/model_fixture.h"
#include "support/cuda_requirement.h"

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

struct StepResult {
  std::map<std::string, double> losses;
  std::map<std::string, at::Tensor> grads;  // on the CPU
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

double relative_difference(const at::Tensor& actual, const at::Tensor& expected) {
  const double scale = expected.to(at::kDouble).norm().item<double>();
  const double difference =
      (actual.to(at::kDouble) - expected.to(at::kDouble)).norm().item<double>();
  return scale > 0.0 ? difference / scale : difference;
}

void expect_same_step(const StepResult& gpu, const StepResult& cpu, double tolerance) {
  ASSERT_EQ(gpu.losses.size(), cpu.losses.size());
  for (const auto& [name, expected] : cpu.losses) {
    ASSERT_TRUE(gpu.losses.count(name)) << name;
    EXPECT_NEAR(gpu.losses.at(name), expected, tolerance * std::max(std::abs(expected), 1e-3))
        << name;
  }
  ASSERT_EQ(gpu.grads.size(), cpu.grads.size()) << "parameters with a gradient";
  int compared = 0;
  for (const auto& [name, expected] : cpu.grads) {
    ASSERT_TRUE(gpu.grads.count(name)) << name << " has no gradient on the GPU";
    EXPECT_LE(relative_difference(gpu.grads.at(name), expected), tolerance) << name;
    ++compared;
  }
  EXPECT_GT(compared, 0);
}

void expect_fp16_close_to_fp32(const StepResult& fp16, const StepResult& fp32) {
  ASSERT_EQ(fp16.losses.size(), fp32.losses.size());
  for (const auto& [name, expected] : fp32.losses) {
    const double actual = fp16.losses.at(name);
    EXPECT_TRUE(std::isfinite(actual)) << name;
    EXPECT_NEAR(actual, expected, 1e-2 * std::max(std::abs(expected), 1e-2)) << name;
  }
  for (const auto& [name, grad] : fp16.grads) {
    EXPECT_TRUE(grad.isfinite().all().item<bool>()) << name;
  }
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
  expect_same_step(gpu, cpu, 1e-4);
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
  expect_same_step(gpu, cpu, 1e-4);
}

// An fp16 autocast step of `make_model()`'s model against fp32, both on the GPU.
template <typename MakeModel>
void expect_fp16_step_close_to_fp32(MakeModel make_model, const Batch& batch) {
  const StepResult fp32 = train_step(*make_model(), batch, kGpu);
  const StepResult fp16 =
      train_step(*make_model(), batch, kGpu, AutocastState{true, c10::ScalarType::Half});
  expect_fp16_close_to_fp32(fp16, fp32);
}

TEST(ModelsOnCuda, AnFp16AutocastStepIsFiniteAndCloseToFp32) {
  OLV2_REQUIRE_CUDA();
  OLV2_REQUIRE_FIXTURE(input_path, "baseline_input.pt");
  OLV2_REQUIRE_FIXTURE(large_input_path, "baseline_large_input.pt");
  expect_fp16_step_close_to_fp32(
      [] { return seeded_model<BaselineImpl>("baseline.yaml", BaselineOptions::from_config); },
      fixture_input(input_path));
  expect_fp16_step_close_to_fp32(
      [] {
        return seeded_model<BaselineLargeImpl>("baseline_large_reduced.yaml",
                                               BaselineLargeOptions::from_config);
      },
      fixture_input(large_input_path));
}

}  // namespace
}  // namespace olv2::test
