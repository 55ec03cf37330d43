// The data-parallel gradient paths over Gloo with two forked ranks: DDP-style buckets overlapped
// with the backward (and not), and ZeRO stages 1 and 2 against the unsharded optimizer. Each
// rank reports through its exit status, printing what differed.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdio>

#include "olv2/engine/distributed/all_reduce_gradient_sync.h"
#include "olv2/engine/distributed/zero_optimizer.h"
#include "olv2/engine/optimizer/replicated_optimizer.h"
#include "olv2/solver/adam.h"
#include "olv2/solver/sgd.h"
#include "support/forked_ranks.h"

namespace olv2 {
namespace {

// Forwards to a collective and counts the collectives started on gradients.
class CountingCollective : public Collective {
 public:
  explicit CountingCollective(Collective& inner) : inner_(inner) {}
  int64_t rank() const override { return inner_.rank(); }
  int64_t world_size() const override { return inner_.world_size(); }
  void all_reduce_sum(std::vector<at::Tensor>& tensors) override { inner_.all_reduce_sum(tensors); }
  std::unique_ptr<PendingCollective> start_all_reduce_sum(at::Tensor tensor) override {
    ++started;
    return inner_.start_all_reduce_sum(tensor);
  }
  std::unique_ptr<PendingCollective> start_reduce_scatter_sum(at::Tensor input,
                                                              at::Tensor part) override {
    ++started;
    return inner_.start_reduce_scatter_sum(input, part);
  }
  std::string reduce_scatter_method() const override { return inner_.reduce_scatter_method(); }
  void all_gather(const at::Tensor& part, at::Tensor& output) override {
    inner_.all_gather(part, output);
  }
  void broadcast(std::vector<at::Tensor>& tensors, int64_t root) override {
    inner_.broadcast(tensors, root);
  }
  std::vector<std::string> all_gather_bytes(const std::string& bytes) override {
    return inner_.all_gather_bytes(bytes);
  }
  void barrier() override { inner_.barrier(); }
  std::string backend() const override { return inner_.backend(); }

  int started = 0;

 private:
  Collective& inner_;
};

// Three linear layers and two extra parameters: `sometimes` takes part in rank 1's loss only,
// `never` in no loss. Its parameters are its registration order.
struct Net : torch::nn::Module {
  Net() {
    torch::manual_seed(0);
    first = register_module("first", torch::nn::Linear(4, 16));
    second = register_module("second", torch::nn::Linear(16, 16));
    third = register_module("third", torch::nn::Linear(16, 3));
    sometimes = register_parameter("sometimes", torch::randn({5}));
    never = register_parameter("never", torch::randn({2}));
  }
  at::Tensor loss(int64_t rank, int64_t micro_batch) {
    const at::Tensor x =
        torch::linspace(-1.0, 1.0, 8 * 4).reshape({8, 4}) * (1.0 + rank) + 0.1 * micro_batch;
    at::Tensor loss = third(torch::tanh(second(torch::tanh(first(x))))).pow(2).mean();
    if (rank == 1) loss = loss + sometimes.pow(2).sum();
    return loss;
  }
  std::vector<at::Tensor> params() { return parameters(); }
  torch::nn::Linear first{nullptr}, second{nullptr}, third{nullptr};
  at::Tensor sometimes, never;
};

bool report(bool ok, const std::string& what) {
  if (!ok) std::fprintf(stderr, "%s\n", what.c_str());
  return ok;
}

// Both ranks' gradients computed here, without communication, and averaged.
std::vector<at::Tensor> expected_average(int64_t micro_batches) {
  std::vector<at::Tensor> sum;
  for (int64_t rank = 0; rank < 2; ++rank) {
    Net net;
    for (int64_t m = 0; m < micro_batches; ++m) net.loss(rank, m).backward();
    const auto params = net.params();
    for (size_t k = 0; k < params.size(); ++k) {
      const at::Tensor grad =
          params[k].grad().defined() ? params[k].grad() : torch::zeros_like(params[k]);
      if (rank == 0) {
        sum.push_back(grad.clone());
      } else {
        sum[k] = (sum[k] + grad) * 0.5;
      }
    }
  }
  return sum;
}

// With 100-byte buckets, the overlapped sync starts buckets during the last micro-batch's
// backward and none during the first; both syncs give exactly the average of the two ranks'
// accumulated gradients (zeros where neither rank has one).
TEST(DistributedGradientSync, OverlappedBucketsAverageExactlyAsAfterTheBackward) {
  const auto statuses = test::run_forked_ranks([](ProcessGroupCollective& group) {
    const std::vector<at::Tensor> expected = expected_average(2);
    bool ok = true;
    for (const bool overlap : {true, false}) {
      CountingCollective counting(group);
      Net net;
      AllReduceGradientSync sync(counting, net.params(), 100.0 / (1024 * 1024), overlap);
      for (int64_t m = 0; m < 2; ++m) {
        const at::Tensor loss = net.loss(group.rank(), m);
        sync.before_backward(loss, /*last=*/m == 1);
        loss.backward();
        if (m == 0) ok &= report(counting.started == 0, "communication on the first micro-batch");
      }
      const int during_backward = counting.started;
      sync.finish(net.params());
      ok &= report(
          overlap ? during_backward > 0 && sync.overlapped_buckets() > 0 : during_backward == 0,
          "buckets started during the backward: " + std::to_string(during_backward));
      ok &= report(counting.started > 3, "buckets: " + std::to_string(counting.started));
      const auto params = net.params();
      for (size_t k = 0; k < params.size(); ++k) {
        ok &= report(
            params[k].grad().equal(expected[k]),
            "gradient " + std::to_string(k) + " differs, overlap " + std::to_string(overlap));
      }
    }
    return ok ? 0 : 1;
  });
  EXPECT_EQ(statuses, (std::vector<int>{0, 0}));
}

// One data-parallel training set-up: a net, its two param groups (the first layer at a tenth
// of the lr, weight decay elsewhere) and how its steps run.
struct Trained {
  Trained(Collective& collective, int64_t zero_stage,
          const std::shared_ptr<const OptimizerOptions>& options) {
    const auto params = net.params();
    ParamGroup slow, rest;
    slow.lr = 1e-3;
    slow.weight_decay = 0.0;
    rest.lr = 1e-2;
    rest.weight_decay = 0.05;
    std::vector<int64_t> group_of;
    for (size_t k = 0; k < params.size(); ++k) {
      ParamGroup& group = k < 2 ? slow : rest;
      group.params.push_back(params[k]);
      group.names.push_back("p" + std::to_string(k));
      group_of.push_back(k < 2 ? 0 : 1);
      trainable.names.push_back("p" + std::to_string(k));
    }
    trainable.tensors = slow.params;
    trainable.tensors.insert(trainable.tensors.end(), rest.params.begin(), rest.params.end());
    const double cap_mb = 300.0 / (1024 * 1024);
    if (zero_stage == 0) {
      // Every rank gives its (replicated) state, which the comparisons read on every rank.
      optimizer = std::make_unique<ReplicatedOptimizer>(
          trainable, options, std::vector<ParamGroup>{slow, rest},
          std::make_unique<AllReduceGradientSync>(collective, params, cap_mb, true), nullptr,
          /*rank=*/0);
    } else {
      auto sharded = std::make_unique<ZeroOptimizer>(
          trainable, nullptr, zero_stage, collective, params, group_of,
          std::vector<ParamGroup>{slow, rest}, options, cap_mb, true);
      zero = sharded.get();
      optimizer = std::move(sharded);
    }
  }

  void step(int64_t rank, int64_t iteration) {
    optimizer->backward(net.loss(rank, iteration), true);
    GradClipOptions clip;
    clip.max_norm = 0.5;  // clips: the global norm matters
    optimizer->step(clip, iteration);
  }
  void zero_grad() { optimizer->zero_grad(); }

  Net net;
  TrainableParams trainable;
  std::unique_ptr<TrainingOptimizer> optimizer;
  ZeroOptimizer* zero = nullptr;  // `optimizer` under ZeRO
};

bool close(const at::Tensor& a, const at::Tensor& b, double rtol) {
  return a.allclose(b, rtol, 1e-12);
}

int64_t state_bytes(const PthValue& state) {
  int64_t bytes = 0;
  for (const auto& [index, entry] : state.at("state").dict_items()) {
    (void)index;
    for (const auto& [key, value] : entry.dict_items()) {
      if (key.as_string() == "step") continue;
      const at::Tensor& t = value.as_tensor();
      bytes += t.numel() * static_cast<int64_t>(t.element_size());
    }
  }
  return bytes;
}

// The optimizers ZeRO shards: AdamW (its moments and step) and SGD with Nesterov momentum (its
// momentum buffer, no step).
std::vector<std::shared_ptr<const OptimizerOptions>> sharded_optimizers() {
  auto sgd = std::make_shared<SgdOptions>();
  sgd->momentum = 0.9;
  sgd->nesterov = true;
  return {std::make_shared<AdamOptions>(), sgd};
}

// ZeRO stage 1 and 2 against the unsharded optimizer, three clipped AdamW or SGD steps: the same
// weights within 1e-6 relative; each rank holds about half of the optimizer state (and under
// stage 2 of the gradients after the step's reduce-scatter); the gathered state is the unsharded
// optimizer's in its layout; a ZeRO optimizer loading the unsharded state continues equally.
TEST(DistributedGradientSync, ZeroStagesShardAndStepAsTheUnshardedOptimizer) {
  const auto statuses = test::run_forked_ranks([](ProcessGroupCollective& group) {
    const int64_t rank = group.rank();
    bool ok = true;
    for (const auto& options : sharded_optimizers()) {
      for (const int64_t stage : {1, 2}) {
        const std::string what = options->type + ", stage " + std::to_string(stage);
        Trained unsharded(group, 0, options), sharded(group, stage, options);
        int64_t gradient_bytes = 0;
        for (int64_t it = 0; it < 3; ++it) {
          unsharded.step(rank, it);
          sharded.step(rank, it);
          gradient_bytes = sharded.zero->gradient_bytes();
          unsharded.zero_grad();
          sharded.zero_grad();
        }
        const auto a = unsharded.net.params(), b = sharded.net.params();
        for (size_t k = 0; k < a.size(); ++k) {
          ok &= report(close(a[k], b[k], 1e-6),
                       what + ": weight " + std::to_string(k) + " differs by " +
                           std::to_string((a[k] - b[k]).abs().max().item<double>()));
        }
        const PthValue whole = *unsharded.optimizer->state();
        const int64_t whole_bytes = state_bytes(whole);
        const int64_t mine = sharded.zero->optimizer_state_bytes();
        // Half, give or take the padding of each bucket to an even length.
        ok &= report(mine >= whole_bytes / 2 - 64 && mine <= whole_bytes / 2 + 64,
                     what + ": optimizer state bytes " + std::to_string(mine) + " of " +
                         std::to_string(whole_bytes));
        if (stage == 2) {
          // Measured at the last step, after its reduce-scatter: half of the gradients.
          int64_t all = 0;
          for (const at::Tensor& param : a) {
            all += param.numel() * static_cast<int64_t>(param.element_size());
          }
          ok &= report(
              gradient_bytes >= all / 2 - 32 && gradient_bytes <= all / 2 + 32,
              "gradient bytes " + std::to_string(gradient_bytes) + " of " + std::to_string(all));
        }
        const std::optional<PthValue> gathered = sharded.optimizer->state();
        ok &= report(gathered.has_value() == (rank == 0), "only rank 0 gets the gathered state");
        if (gathered) {
          for (const auto& [index, entry] : whole.at("state").dict_items()) {
            const PthValue& other = *gathered->at("state").find(index);
            ok &= report(entry.dict_items().size() == other.dict_items().size(),
                         what + ": gathered entries differ");
            for (const auto& [key, value] : entry.dict_items()) {
              const PthValue* theirs = other.find(key);
              ok &= report(
                  theirs != nullptr && (key.as_string() == "step"
                                            ? value.as_tensor().equal(theirs->as_tensor())
                                            : close(value.as_tensor(), theirs->as_tensor(), 1e-5)),
                  what + ": gathered " + key.as_string() + " differs");
            }
          }
          ok &= report(gathered->at("param_groups").items().size() == 2, "param groups");
        }
        // The unsharded state into a fresh ZeRO optimizer of the other stage: one more step each.
        Trained resumed(group, stage == 1 ? 2 : 1, options);
        {
          torch::NoGradGuard no_grad;
          const auto from = unsharded.net.params(), to = resumed.net.params();
          for (size_t k = 0; k < from.size(); ++k) to[k].copy_(from[k]);
        }
        resumed.optimizer->load_state(whole);
        unsharded.step(rank, 3);
        resumed.step(rank, 3);
        const auto c = unsharded.net.params(), d = resumed.net.params();
        for (size_t k = 0; k < c.size(); ++k) {
          ok &= report(close(c[k], d[k], 1e-6),
                       what + ", after loading: weight " + std::to_string(k) + " differs");
        }
      }
    }
    return ok ? 0 : 1;
  });
  EXPECT_EQ(statuses, (std::vector<int>{0, 0}));
}

}  // namespace
}  // namespace olv2
