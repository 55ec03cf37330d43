#include "olv2/engine/distributed/bucket_readiness.h"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_set>

namespace olv2 {

struct BucketReadiness::State {
  const std::vector<at::Tensor>& params;
  const std::vector<GradientBucket>& buckets;
  Launch launch;
  std::vector<size_t> bucket_of;  // per parameter
  // The parameters' gradient accumulators, kept alive so that the hooks stay on them.
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators;
  std::vector<uintptr_t> hook_keys;

  std::mutex mutex;
  bool armed = false;
  std::vector<bool> ready;       // per parameter, this step
  std::vector<int64_t> pending;  // per bucket: parameters not ready yet
  size_t next_bucket = 0;        // the first bucket not launched
  size_t launched_in_backward = 0;

  State(const std::vector<at::Tensor>& params_, const std::vector<GradientBucket>& buckets_,
        Launch launch_)
      : params(params_), buckets(buckets_), launch(std::move(launch_)) {}

  void reset() {
    ready.assign(params.size(), false);
    pending.clear();
    for (const GradientBucket& bucket : buckets)
      pending.push_back(static_cast<int64_t>(bucket.params.size()));
    next_bucket = 0;
    launched_in_backward = 0;
  }

  // Called with the mutex held.
  void mark_ready(size_t param) {
    if (!armed || ready[param]) return;
    ready[param] = true;
    --pending[bucket_of[param]];
    while (next_bucket < buckets.size() && pending[next_bucket] == 0) {
      launch(next_bucket++);
      ++launched_in_backward;
    }
  }
};

BucketReadiness::BucketReadiness(const std::vector<at::Tensor>& params,
                                 const std::vector<GradientBucket>& buckets, Launch launch)
    : state_(std::make_shared<State>(params, buckets, std::move(launch))) {
  State& state = *state_;
  state.bucket_of.assign(params.size(), 0);
  for (size_t b = 0; b < buckets.size(); ++b) {
    for (size_t k : buckets[b].params) state.bucket_of[k] = b;
  }
  state.reset();
  const std::weak_ptr<State> weak = state_;
  for (size_t k = 0; k < params.size(); ++k) {
    auto accumulator = torch::autograd::impl::grad_accumulator(params[k]);
    if (!accumulator) {
      throw std::invalid_argument("gradient buckets: parameter " + std::to_string(k) +
                                  " does not require a gradient");
    }
    state.hook_keys.push_back(
        accumulator->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
            [weak, k](const torch::autograd::variable_list& outputs,
                      const torch::autograd::variable_list& /*inputs*/) {
              if (auto alive = weak.lock()) {
                std::lock_guard<std::mutex> lock(alive->mutex);
                alive->mark_ready(k);
              }
              return outputs;
            })));
    state.accumulators.push_back(std::move(accumulator));
  }
}

BucketReadiness::~BucketReadiness() {
  for (size_t k = 0; k < state_->accumulators.size(); ++k) {
    state_->accumulators[k]->del_post_hook(state_->hook_keys[k]);
  }
}

void BucketReadiness::arm(const at::Tensor& loss) {
  State& state = *state_;
  // Every accumulator the loss's graph reaches; the others will not fire in this backward.
  std::unordered_set<const torch::autograd::Node*> reached;
  if (const auto root = loss.grad_fn()) {
    std::vector<torch::autograd::Node*> stack = {root.get()};
    reached.insert(root.get());
    while (!stack.empty()) {
      torch::autograd::Node* node = stack.back();
      stack.pop_back();
      for (const torch::autograd::Edge& edge : node->next_edges()) {
        torch::autograd::Node* next = edge.function.get();
        if (next != nullptr && reached.insert(next).second) stack.push_back(next);
      }
    }
  }
  std::lock_guard<std::mutex> lock(state.mutex);
  state.reset();
  state.armed = true;
  for (size_t k = 0; k < state.params.size(); ++k) {
    if (reached.count(state.accumulators[k].get()) == 0) state.mark_ready(k);
  }
  state.launched_in_backward = 0;
}

void BucketReadiness::launch_remaining() {
  State& state = *state_;
  std::lock_guard<std::mutex> lock(state.mutex);
  const size_t during_backward = state.armed ? state.launched_in_backward : 0;
  while (state.next_bucket < state.buckets.size()) state.launch(state.next_bucket++);
  state.reset();
  state.armed = false;
  state.launched_in_backward = during_backward;
}

size_t BucketReadiness::launched_during_backward() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->launched_in_backward;
}

}  // namespace olv2
