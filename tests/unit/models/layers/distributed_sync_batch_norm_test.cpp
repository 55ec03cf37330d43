// SyncBN (`norm_cfg: {type: SyncBN}`): BatchNorm in one process; with two forked ranks of one
// sample each, the same outputs, gradients and running statistics as BatchNorm over both
// samples in one process.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdio>

#include "olv2/config/config_loader.h"
#include "olv2/config/schema.h"
#include "olv2/models/backbones/resnet.h"
#include "olv2/models/layers/batch_norm_2d.h"
#include "olv2/util/collective.h"
#include "olv2/util/error.h"
#include "support/forked_ranks.h"

namespace olv2 {
namespace {

// A small ResNet-18 (base 8 channels, 2 stages) with the given norm, all weights from seed 0,
// BatchNorm in training mode (norm_eval false).
ResNet small_resnet(bool synchronized) {
  ResNetOptions options;
  options.depth = 18;
  options.base_channels = 8;
  options.stem_channels = 8;
  options.num_stages = 2;
  options.out_indices = {0, 1};
  options.norm_eval = false;
  options.zero_init_residual = false;
  options.norm.synchronized = synchronized;
  torch::manual_seed(0);
  ResNet net(options);
  // Non-trivial affine parameters, so that their gradients matter.
  torch::NoGradGuard no_grad;
  for (auto& item : net->named_parameters()) {
    if (item.key().find("bn") != std::string::npos ||
        item.key().find("downsample.1") != std::string::npos)
      item.value().uniform_(0.5, 1.5);
  }
  net->train();
  return net;
}

at::Tensor samples() {
  torch::manual_seed(1);
  return torch::randn({2, 3, 32, 32});
}

at::Tensor loss_of(const std::vector<at::Tensor>& outputs) {
  at::Tensor loss = outputs[0].pow(2).mean();
  for (size_t i = 1; i < outputs.size(); ++i) loss = loss + outputs[i].sin().mean();
  return loss;
}

// Within 1e-5 of the reference's largest magnitude (float32 sums in another order through
// the network's layers).
bool close(const at::Tensor& a, const at::Tensor& b, const std::string& what) {
  const double difference = (a - b).abs().max().item<double>();
  const double scale = b.abs().max().item<double>();
  const bool ok = difference <= 1e-5 * scale;
  if (!ok) std::fprintf(stderr, "%s differs by %g (largest %g)\n", what.c_str(), difference, scale);
  return ok;
}

// The layer is PyTorch's BatchNorm2d: names, outputs, gradients and running statistics.
TEST(SyncBatchNorm, TheLayerIsTorchsBatchNorm2d) {
  torch::nn::BatchNorm2d torch_norm(4);
  BatchNorm2dLayer ours(4, BatchNormOptions{});
  {
    torch::NoGradGuard no_grad;
    torch_norm->weight.uniform_(0.5, 1.5);
    ours->weight.copy_(torch_norm->weight);
  }
  const auto a = torch_norm->named_parameters(), b = ours->named_parameters();
  ASSERT_EQ(a.keys(), b.keys());
  ASSERT_EQ(torch_norm->named_buffers().keys(), ours->named_buffers().keys());
  torch::manual_seed(2);
  for (int step = 0; step < 2; ++step) {
    const at::Tensor x = torch::randn({3, 4, 5, 5}) * (1.0 + step);
    const at::Tensor y = torch_norm->forward(x), z = ours->forward(x);
    EXPECT_TRUE(y.equal(z));
    (y.sin().sum()).backward();
    (z.sin().sum()).backward();
  }
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(a[i].value().grad().equal(b[i].value().grad())) << a[i].key();
  }
  const auto r = torch_norm->named_buffers(), s = ours->named_buffers();
  for (size_t i = 0; i < r.size(); ++i) EXPECT_TRUE(r[i].value().equal(s[i].value())) << r[i].key();
  torch_norm->eval();
  ours->eval();
  const at::Tensor x = torch::randn({2, 4, 3, 3});
  EXPECT_TRUE(torch_norm->forward(x).equal(ours->forward(x)));
}

TEST(SyncBatchNorm, IsBatchNormInOneProcessAndInEvalMode) {
  ResNet plain = small_resnet(false), synced = small_resnet(true);
  const at::Tensor x = samples();
  const at::Tensor a = loss_of(plain->forward(x)), b = loss_of(synced->forward(x));
  a.backward();
  b.backward();
  EXPECT_TRUE(a.equal(b));
  const auto p = plain->named_parameters(), q = synced->named_parameters();
  for (size_t i = 0; i < p.size(); ++i) {
    EXPECT_TRUE(p[i].value().grad().equal(q[i].value().grad())) << p[i].key();
  }
  const auto r = plain->named_buffers(), s = synced->named_buffers();
  for (size_t i = 0; i < r.size(); ++i) EXPECT_TRUE(r[i].value().equal(s[i].value())) << r[i].key();
  plain->eval();
  synced->eval();
  torch::NoGradGuard no_grad;
  EXPECT_TRUE(loss_of(plain->forward(x)).equal(loss_of(synced->forward(x))));
}

TEST(SyncBatchNorm, TheConfigNamesBNOrSyncBN) {
  const auto options_of = [](const std::string& yaml) {
    const ConfigNode node = parse_yaml(yaml, "norm.yaml");
    validate_config(node, BatchNormOptions::schema());
    return BatchNormOptions::from_config(node);
  };
  EXPECT_FALSE(options_of("type: BN").synchronized);
  EXPECT_TRUE(options_of("type: SyncBN\nrequires_grad: false").synchronized);
  EXPECT_FALSE(options_of("type: SyncBN\nrequires_grad: false").requires_grad);
  try {
    options_of("type: GN");
    FAIL() << "GN accepted";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("norm.yaml:1"), std::string::npos) << message;
    EXPECT_NE(message.find("SyncBN"), std::string::npos) << message;
  }
}

// Rank r feeds sample r; the reference is plain BatchNorm over both samples in one process, whose
// loss is the mean of the two ranks' losses (each a mean over its own sample). Compared within
// 1e-5 (relative to the reference's largest value): each rank's outputs with the reference's slice,
// its input gradient divided by the world size (a rank's backward carries every rank's loss through
// the shared statistics) with the reference's, the parameter gradients averaged over the ranks (as
// the data-parallel sync averages them) with the reference's, and the running statistics after two
// steps.
TEST(SyncBatchNorm, TwoRanksOfOneSampleEqualBatchNormOverBoth) {
  const auto statuses = test::run_forked_ranks([](ProcessGroupCollective& group) {
    install_process_collective(std::shared_ptr<Collective>(&group, [](Collective*) {}));
    const int64_t rank = group.rank();
    bool ok = true;
    ResNet reference = small_resnet(false), synced = small_resnet(true);
    for (int step = 0; step < 2; ++step) {
      const at::Tensor both = (samples() * (1.0 + step)).requires_grad_();
      const std::vector<at::Tensor> expected = reference->forward(both);
      loss_of(expected).backward();
      const at::Tensor mine = (samples() * (1.0 + step)).narrow(0, rank, 1).requires_grad_();
      const std::vector<at::Tensor> outputs = synced->forward(mine);
      loss_of(outputs).backward();
      for (size_t i = 0; i < outputs.size(); ++i) {
        ok &= close(outputs[i], expected[i].narrow(0, rank, 1), "output " + std::to_string(i));
      }
      ok &= close(mine.grad() / 2.0, both.grad().narrow(0, rank, 1), "input gradient");
      const auto p = reference->named_parameters(), q = synced->named_parameters();
      for (size_t i = 0; i < p.size(); ++i) {
        std::vector<at::Tensor> sum = {q[i].value().grad().clone()};
        group.all_reduce_sum(sum);
        ok &= close(sum[0] / 2.0, p[i].value().grad(), "gradient of " + p[i].key());
      }
      reference->zero_grad();
      synced->zero_grad();
    }
    const auto r = reference->named_buffers(), s = synced->named_buffers();
    for (size_t i = 0; i < r.size(); ++i) {
      ok &= r[i].value().is_floating_point() ? close(s[i].value(), r[i].value(), r[i].key())
                                             : s[i].value().equal(r[i].value());
    }
    install_process_collective(nullptr);
    return ok ? 0 : 1;
  });
  EXPECT_EQ(statuses, (std::vector<int>{0, 0}));
}

}  // namespace
}  // namespace olv2
