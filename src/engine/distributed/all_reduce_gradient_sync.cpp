#include "olv2/engine/distributed/all_reduce_gradient_sync.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <sstream>

namespace olv2 {

int64_t bucket_cap_bytes(double bucket_cap_mb) {
  return std::max<int64_t>(1, static_cast<int64_t>(bucket_cap_mb * 1024 * 1024));
}

AllReduceGradientSync::AllReduceGradientSync(Collective& collective, std::vector<at::Tensor> params,
                                             double bucket_cap_mb, bool overlap)
    : collective_(collective),
      params_(std::move(params)),
      bucket_bytes_(bucket_cap_bytes(bucket_cap_mb)),
      overlap_(overlap) {
  buckets_ = plan_gradient_buckets(params_, std::vector<int64_t>(params_.size(), 0), bucket_bytes_,
                                   /*parts=*/1);
  flat_.resize(buckets_.size());
  pending_.resize(buckets_.size());
  readiness_ = std::make_unique<BucketReadiness>(params_, buckets_,
                                                 [this](size_t bucket) { launch(bucket); });
}

void AllReduceGradientSync::before_backward(const at::Tensor& loss, bool last) {
  if (overlap_ && last) readiness_->arm(loss);
}

void AllReduceGradientSync::launch(size_t bucket) {
  at::NoGradGuard no_grad;
  flat_[bucket] = flatten_bucket_gradients(buckets_[bucket], params_);
  pending_[bucket] = collective_.start_all_reduce_sum(flat_[bucket]);
}

SyncedGradients AllReduceGradientSync::finish(const std::vector<at::Tensor>& params) {
  at::NoGradGuard no_grad;
  readiness_->launch_remaining();
  overlapped_buckets_ = readiness_->launched_during_backward();
  const double inverse_world = 1.0 / static_cast<double>(collective_.world_size());
  for (size_t b = 0; b < buckets_.size(); ++b) {
    pending_[b]->wait();
    pending_[b].reset();
    const GradientBucket& bucket = buckets_[b];
    for (size_t i = 0; i < bucket.params.size(); ++i) {
      const at::Tensor& param = params_[bucket.params[i]];
      if (!param.grad().defined()) param.mutable_grad() = at::zeros_like(param);
      at::Tensor grad = param.grad();
      grad.copy_(flat_[b].narrow(0, bucket.offsets[i], param.numel()).view_as(grad))
          .mul_(inverse_world);
    }
    flat_[b] = at::Tensor();
  }
  return SyncedGradients::whole(params);
}

std::string AllReduceGradientSync::describe() const {
  std::ostringstream out;
  out << "gradients averaged over " << collective_.world_size() << " ranks ("
      << collective_.backend() << " all-reduce, " << buckets_.size() << " buckets of at most "
      << static_cast<double>(bucket_bytes_) / (1024.0 * 1024.0) << " MB, "
      << (overlap_ ? "overlapped with the backward" : "after the backward") << ")";
  return out.str();
}

}  // namespace olv2
