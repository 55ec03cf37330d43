#pragma once
// DDP's gradient all-reduce over buckets, overlapped with the backward or after it.
#include <cstdint>
#include <memory>
#include <vector>

#include "olv2/engine/distributed/bucket_readiness.h"
#include "olv2/engine/distributed/gradient_buckets.h"
#include "olv2/engine/distributed/gradient_sync.h"
#include "olv2/util/collective.h"

namespace olv2 {

// DDP's gradient all-reduce: the parameters' gradients in buckets of at most `bucket_cap_mb`
// (gradient_buckets.h), each summed over the ranks and divided by the world size. With
// `overlap`, each bucket's all-reduce starts during the step's last backward as soon as its
// gradients are final (bucket_readiness.h), and finish() waits for them; without, finish()
// starts them all after the backward. No communication on the other micro-batches of an
// accumulation step. A parameter without a gradient on a rank contributes zeros there (and
// gets the average of the others); one without a gradient on every rank gets zeros, where DDP
// would leave it None.
class AllReduceGradientSync : public GradientSync {
 public:
  // `params`: the trainable parameters in registration order; they must outlive the sync.
  AllReduceGradientSync(Collective& collective, std::vector<at::Tensor> params,
                        double bucket_cap_mb, bool overlap);
  void before_backward(const at::Tensor& loss, bool last) override;
  SyncedGradients finish(const std::vector<at::Tensor>& params) override;
  std::string describe() const override;
  // Buckets the last finish() found already started during the backward.
  size_t overlapped_buckets() const { return overlapped_buckets_; }

 private:
  void launch(size_t bucket);

  Collective& collective_;
  std::vector<at::Tensor> params_;
  int64_t bucket_bytes_;
  bool overlap_;
  std::vector<GradientBucket> buckets_;
  std::vector<at::Tensor> flat_;
  std::vector<std::unique_ptr<PendingCollective>> pending_;
  std::unique_ptr<BucketReadiness> readiness_;
  size_t overlapped_buckets_ = 0;
};

// `bucket_cap_mb` in bytes (at least one).
int64_t bucket_cap_bytes(double bucket_cap_mb);

}  // namespace olv2
