// The engine's CUDA paths: the loss scaler's fused unscale and overflow skip, pinned batches,
// the DETR heads' attention through scaled_dot_product_attention, the allocator's peaks and
// the memory cap.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>

#include "olv2/data/data_loader.h"
#include "olv2/engine/distributed/gradient_sync.h"
#include "olv2/engine/optimizer/replicated_optimizer.h"
#include "olv2/engine/precision/dynamic_loss_scaler.h"
#include "olv2/engine/precision/loss_scaler.h"
#include "olv2/models/ops/attention.h"
#include "olv2/solver/adam.h"
#include "olv2/util/cuda_memory_cap.h"
#include "olv2/util/peak_memory.h"
#include "support/cuda_requirement.h"

namespace olv2 {
namespace {

const c10::Device kGpu(c10::kCUDA, 0);

TEST(LossScalerOnCuda, AnInfGradientSkipsTheStepAndHalvesTheScale) {
  OLV2_REQUIRE_CUDA();
  torch::manual_seed(0);
  torch::nn::Linear layer(3, 2);
  layer->to(kGpu);
  TrainableParams params;
  params.names = {"layer.weight", "layer.bias"};
  params.tensors = {layer->weight, layer->bias};
  ParamGroup group;
  group.params = params.tensors;
  group.lr = 1e-2;
  LossScalerOptions options;
  options.hysteresis = 1;
  ReplicatedOptimizer optimizer(params, std::make_shared<AdamOptions>(),
                                std::vector<ParamGroup>{group},
                                std::make_unique<SingleProcessGradientSync>(),
                                std::make_unique<DynamicLossScaler>(options));
  const LossScaler& scaler = *optimizer.loss_scaler();

  const auto step = [&](bool inject_inf, int64_t iteration) {
    optimizer.zero_grad();
    optimizer.backward(layer->forward(torch::ones({4, 3}, kGpu)).pow(2).sum(), true);
    if (inject_inf) layer->bias.mutable_grad()[1] = std::numeric_limits<float>::infinity();
    return optimizer.step(std::nullopt, iteration);
  };
  ASSERT_TRUE(step(false, 1).applied);
  const at::Tensor weight_before = layer->weight.detach().clone();
  const double scale_before = scaler.scale();
  const StepOutcome skipped = step(true, 2);
  EXPECT_FALSE(skipped.applied);
  EXPECT_TRUE(torch::equal(layer->weight.detach(), weight_before));
  EXPECT_EQ(scaler.scale(), scale_before / 2);
  EXPECT_EQ(scaler.skipped_steps(), 1);
  // The fused unscale divided every finite gradient by the scale on the device.
  const StepOutcome applied = step(false, 3);
  EXPECT_TRUE(applied.applied);
  EXPECT_TRUE(std::isfinite(applied.grad_norm));
  EXPECT_FALSE(torch::equal(layer->weight.detach(), weight_before));
}

Sample numbered_sample(int64_t index, int64_t /*epoch*/, const at::Tensor& /*images_into*/) {
  Sample sample;
  sample.index = index;
  sample.img = torch::arange(2 * 3 * 4 * 5, torch::kFloat).view({2, 3, 4, 5}) + index;
  sample.lidar2img = torch::eye(4, torch::kFloat64).repeat({2, 1, 1}) * (index + 1);
  sample.can_bus = torch::full({18}, static_cast<double>(index), torch::kFloat64);
  sample.meta.sample_idx = std::to_string(index);
  return sample;
}

TEST(PinnedBatches, APinnedBatchEqualsAnUnpinnedOneOnTheGpu) {
  OLV2_REQUIRE_CUDA();
  DataLoaderOptions options;
  options.samples_per_gpu = 2;
  options.workers_per_gpu = 2;
  const auto sampler = std::make_shared<DistributedGroupSampler>(SamplerOptions{6, 0, 1, 3}, 2);
  DataLoader pageable(numbered_sample, sampler, options);
  options.pin_for = kGpu;
  DataLoader pinned(numbered_sample, sampler, options);
  pageable.start_epoch(0);
  pinned.start_epoch(0);
  int batches = 0;
  while (auto plain = pageable.next()) {
    auto pinned_batch = pinned.next();
    ASSERT_TRUE(pinned_batch.has_value());
    EXPECT_TRUE(pinned_batch->images.is_pinned());
    EXPECT_FALSE(plain->images.is_pinned());
    const Batch a = plain->to(kGpu, /*non_blocking=*/false);
    const Batch b = pinned_batch->to(kGpu, /*non_blocking=*/true);
    EXPECT_TRUE(torch::equal(a.images.cpu(), b.images.cpu()));
    EXPECT_TRUE(torch::equal(a.lidar2img.cpu(), b.lidar2img.cpu()));
    EXPECT_TRUE(torch::equal(a.can_bus.cpu(), b.can_bus.cpu()));
    ++batches;
  }
  EXPECT_EQ(batches, 3);
  EXPECT_FALSE(pinned.next().has_value());
}

// softmax(q k^T / sqrt(d)) v in double on the CPU, ignored keys masked.
at::Tensor reference_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                               const at::Tensor& key_padding_mask) {
  const at::Tensor qd = q.cpu().to(at::kDouble), kd = k.cpu().to(at::kDouble),
                   vd = v.cpu().to(at::kDouble);
  at::Tensor scores = torch::matmul(qd, kd.transpose(-2, -1)) / std::sqrt(double(q.size(-1)));
  scores = scores.masked_fill(key_padding_mask.cpu().view({q.size(0), 1, 1, k.size(2)}),
                              -std::numeric_limits<double>::infinity());
  return torch::matmul(torch::softmax(scores, -1), vd);
}

TEST(AttentionOnCuda, ScaledDotProductAttentionEqualsTheMaterialisedWeights) {
  OLV2_REQUIRE_CUDA();
  torch::manual_seed(0);
  const auto options = torch::TensorOptions().device(kGpu).requires_grad(true);
  const at::Tensor q = torch::randn({2, 8, 37, 16}, options);
  const at::Tensor k = torch::randn({2, 8, 53, 16}, options);
  const at::Tensor v = torch::randn({2, 8, 53, 16}, options);
  at::Tensor mask = torch::zeros({2, 53}, torch::kBool);
  mask.index_put_({1, torch::indexing::Slice(40)}, true);
  const at::Tensor out = dot_product_attention(q, k, v, mask.to(kGpu), 0.1, /*training=*/false);
  const at::Tensor expected = reference_attention(q, k, v, mask);
  EXPECT_LT((out.cpu().to(at::kDouble) - expected).abs().max().item<double>(), 1e-5);

  // Gradients against autograd through the reference.
  const at::Tensor grad_out = torch::randn_like(out);
  const auto grads = torch::autograd::grad({out}, {q, k, v}, {grad_out});
  const at::Tensor qd = q.detach().cpu().to(at::kDouble).requires_grad_(),
                   kd = k.detach().cpu().to(at::kDouble).requires_grad_(),
                   vd = v.detach().cpu().to(at::kDouble).requires_grad_();
  const auto expected_grads = torch::autograd::grad({reference_attention(qd, kd, vd, mask)},
                                                    {qd, kd, vd}, {grad_out.cpu().to(at::kDouble)});
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_LT((grads[i].cpu().to(at::kDouble) - expected_grads[i]).abs().max().item<double>(), 1e-4)
        << "input " << i;
  }
}

TEST(AttentionOnCuda, TheLaneEncodersSelfAttentionNeverHoldsItsWeights) {
  OLV2_REQUIRE_CUDA();
  // 4 heads x 5000 x 5000 fp32 weights would be 400 MB; q, k, v and their gradients are 5 MB.
  const auto options = torch::TensorOptions().device(kGpu).requires_grad(true);
  const at::Tensor q = torch::randn({1, 4, 5000, 16}, options);
  const at::Tensor k = torch::randn({1, 4, 5000, 16}, options);
  const at::Tensor v = torch::randn({1, 4, 5000, 16}, options);
  const int64_t before_mb = peak_memory_mb(kGpu);
  dot_product_attention(q, k, v, at::Tensor(), 0.1, /*training=*/true).sum().backward();
  torch::cuda::synchronize();
  EXPECT_LT(peak_memory_mb(kGpu) - before_mb, 100);
  EXPECT_TRUE(q.grad().isfinite().all().item<bool>());
}

TEST(PeakMemoryOnCuda, TheReservedPeakHoldsTheAllocatedPeak) {
  OLV2_REQUIRE_CUDA();
  const at::Tensor block =
      torch::empty({64 * 1024 * 1024}, torch::TensorOptions(kGpu).dtype(torch::kByte));
  const int64_t allocated = peak_memory_mb(kGpu);
  const std::optional<int64_t> reserved = peak_reserved_memory_mb(kGpu);
  ASSERT_TRUE(reserved.has_value());
  std::printf("peak allocated %lld MB, peak reserved %lld MB\n", static_cast<long long>(allocated),
              static_cast<long long>(*reserved));
  EXPECT_GE(allocated, 64);
  EXPECT_GE(*reserved, allocated);
  EXPECT_FALSE(peak_reserved_memory_mb(c10::Device(c10::kCPU)).has_value());
}

// Under a 1 GiB cap a 2 GiB allocation fails as on a 1 GiB card, and one of 256 MiB does not:
// what makes the GPU check's "fits in 16 GB" a run under the cap, not an inference.
TEST(MemoryCapOnCuda, AnAllocationPastTheCapFailsAsOnASmallerCard) {
  OLV2_REQUIRE_CUDA();
  const std::string applied = apply_cuda_memory_cap(kGpu, 1.0);
  std::printf("%s\n", applied.c_str());
  EXPECT_NE(applied.find("applied, "), std::string::npos) << applied;
  const auto bytes = [](int64_t mib) {
    return torch::empty({mib * 1024 * 1024}, torch::TensorOptions(kGpu).dtype(torch::kByte));
  };
  EXPECT_NO_THROW(bytes(256));
  EXPECT_THROW(bytes(2048), c10::OutOfMemoryError);
  const std::string lifted = apply_cuda_memory_cap(kGpu, 1e6);
  EXPECT_NE(lifted.find("no limit"), std::string::npos) << lifted;
  EXPECT_NO_THROW(bytes(2048));
}

}  // namespace
}  // namespace olv2
