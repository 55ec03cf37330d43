#include "olv2/engine/distributed/gradient_buckets.h"

#include <ATen/ATen.h>

#include <algorithm>

namespace olv2 {

std::vector<GradientBucket> plan_gradient_buckets(const std::vector<at::Tensor>& params,
                                                  const std::vector<int64_t>& group_of,
                                                  int64_t cap_bytes, int64_t parts) {
  std::vector<GradientBucket> buckets;
  int64_t bytes = 0;
  for (size_t k = params.size(); k-- > 0;) {
    const at::Tensor& param = params[k];
    const int64_t param_bytes = param.numel() * static_cast<int64_t>(param.element_size());
    bool fits = !buckets.empty() && bytes + param_bytes <= cap_bytes;
    if (fits) {
      const at::Tensor& first = params[buckets.back().params.front()];
      fits = first.scalar_type() == param.scalar_type() && first.device() == param.device() &&
             buckets.back().group == group_of[k];
    }
    if (!fits) {
      buckets.emplace_back();
      buckets.back().group = group_of[k];
      bytes = 0;
    }
    GradientBucket& bucket = buckets.back();
    bucket.params.push_back(k);
    bucket.offsets.push_back(bucket.numel);
    bucket.numel += param.numel();
    bytes += param_bytes;
  }
  for (GradientBucket& bucket : buckets) {
    bucket.padded_numel = (bucket.numel + parts - 1) / parts * parts;
  }
  return buckets;
}

at::Tensor flatten_bucket_gradients(const GradientBucket& bucket,
                                    const std::vector<at::Tensor>& params) {
  const at::Tensor& first = params[bucket.params.front()];
  at::Tensor flat = at::empty({bucket.padded_numel}, first.options());
  for (size_t i = 0; i < bucket.params.size(); ++i) {
    const at::Tensor& param = params[bucket.params[i]];
    at::Tensor slot = flat.narrow(0, bucket.offsets[i], param.numel());
    if (param.grad().defined()) {
      slot.copy_(param.grad().reshape({-1}));
    } else {
      slot.zero_();
    }
  }
  if (bucket.padded_numel > bucket.numel) {
    flat.narrow(0, bucket.numel, bucket.padded_numel - bucket.numel).zero_();
  }
  return flat;
}

std::vector<PartSlice> part_slices(const GradientBucket& bucket,
                                   const std::vector<at::Tensor>& params, int64_t part,
                                   int64_t parts) {
  const int64_t size = bucket.part_numel(parts);
  const int64_t begin = part * size;
  const int64_t end = begin + size;
  std::vector<PartSlice> slices;
  for (size_t i = 0; i < bucket.params.size(); ++i) {
    const int64_t start = bucket.offsets[i];
    const int64_t stop = start + params[bucket.params[i]].numel();
    const int64_t from = std::max(start, begin);
    const int64_t to = std::min(stop, end);
    if (from < to) slices.push_back({i, from - start, from - begin, to - from});
  }
  return slices;
}

}  // namespace olv2
