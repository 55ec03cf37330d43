#include "olv2/engine/dist/all_reduce_gradient_sync.h"

#include <ATen/ATen.h>

#include <sstream>

namespace olv2 {

namespace {

struct Bucket {
  std::vector<at::Tensor> grads;
  int64_t bytes = 0;
};

// Consecutive gradients of one dtype and device, at most `cap` bytes (a larger one alone).
std::vector<Bucket> buckets_of(const std::vector<at::Tensor>& grads, int64_t cap) {
  std::vector<Bucket> buckets;
  for (const at::Tensor& grad : grads) {
    const int64_t bytes = grad.numel() * static_cast<int64_t>(grad.element_size());
    const bool fits = !buckets.empty() && buckets.back().bytes + bytes <= cap &&
                      buckets.back().grads.front().scalar_type() == grad.scalar_type() &&
                      buckets.back().grads.front().device() == grad.device();
    if (!fits) buckets.emplace_back();
    buckets.back().grads.push_back(grad);
    buckets.back().bytes += bytes;
  }
  return buckets;
}

}  // namespace

AllReduceGradientSync::AllReduceGradientSync(Collective& collective, double bucket_cap_mb)
    : collective_(collective),
      bucket_bytes_(std::max<int64_t>(1, static_cast<int64_t>(bucket_cap_mb * 1024 * 1024))) {}

bool AllReduceGradientSync::synchronize(const std::vector<at::Tensor>& params,
                                        bool local_overflow) {
  at::NoGradGuard no_grad;
  std::vector<at::Tensor> grads;
  for (const at::Tensor& param : params) {
    if (!param.grad().defined()) param.mutable_grad() = at::zeros_like(param);
    grads.push_back(param.grad());
  }
  const std::vector<Bucket> buckets = buckets_of(grads, bucket_bytes_);
  std::vector<at::Tensor> flat;
  for (const Bucket& bucket : buckets) {
    std::vector<at::Tensor> pieces;
    for (const at::Tensor& grad : bucket.grads) pieces.push_back(grad.reshape({-1}));
    flat.push_back(at::cat(pieces));
  }
  flat.push_back(at::full({1}, local_overflow ? 1.0 : 0.0, at::kFloat));
  collective_.all_reduce_sum(flat);
  const double inverse_world = 1.0 / static_cast<double>(collective_.world_size());
  for (size_t b = 0; b < buckets.size(); ++b) {
    int64_t offset = 0;
    for (const at::Tensor& grad : buckets[b].grads) {
      const int64_t n = grad.numel();
      at::Tensor grad_view = grad;
      grad_view.copy_(flat[b].narrow(0, offset, n).view_as(grad)).mul_(inverse_world);
      offset += n;
    }
  }
  return flat.back().item<double>() > 0.0;
}

std::string AllReduceGradientSync::describe() const {
  std::ostringstream out;
  out << "gradients averaged over " << collective_.world_size() << " ranks ("
      << collective_.backend() << " all-reduce, buckets of "
      << static_cast<double>(bucket_bytes_) / (1024.0 * 1024.0) << " MB)";
  return out.str();
}

}  // namespace olv2
