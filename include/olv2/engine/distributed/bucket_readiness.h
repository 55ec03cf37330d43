#pragma once
// When each gradient bucket may start its communication during the backward, as DDP's reducer
// decides it.
#include <ATen/core/Tensor.h>

#include <functional>
#include <memory>
#include <vector>

#include "olv2/engine/distributed/gradient_buckets.h"

namespace olv2 {

// When each gradient bucket may start its communication during a backward pass, as DDP's
// reducer decides it: an autograd hook after each parameter's gradient accumulation marks the
// parameter ready; a bucket whose parameters are all ready is launched, and buckets are
// launched strictly in bucket order (a bucket waits for the ones before it), so that every
// rank starts the same collectives in the same order whichever order its hooks fire in.
// Parameters the backward cannot reach count as ready at once (DDP with
// find_unused_parameters=True: the graph is searched from the loss before the backward).
// Only an armed backward launches anything; the other micro-batches of an accumulation step
// just accumulate.
class BucketReadiness {
 public:
  using Launch = std::function<void(size_t bucket)>;
  // `params` and `buckets` must outlive this object.
  BucketReadiness(const std::vector<at::Tensor>& params, const std::vector<GradientBucket>& buckets,
                  Launch launch);
  ~BucketReadiness();
  BucketReadiness(const BucketReadiness&) = delete;
  BucketReadiness& operator=(const BucketReadiness&) = delete;

  // The next backward, from `loss`, is the last of the step: its hooks launch buckets.
  void arm(const at::Tensor& loss);
  // Launches, in order, every bucket not launched yet (after the backward; all of them when
  // none was armed), and disarms.
  void launch_remaining();
  // Buckets the armed backward launched before launch_remaining() (for tests and logs).
  size_t launched_during_backward() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace olv2
