#pragma once
// DDP's gradient buckets: parameters grouped, flattened and split into equal per-rank parts.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace olv2 {

// One bucket of gradients communicated together: parameters of one dtype, device and
// optimizer param group, laid out one after another in a flat buffer of `padded_numel`
// elements (`numel` rounded up to a multiple of the part count, so that each rank owns an
// equal part of it under ZeRO).
struct GradientBucket {
  std::vector<size_t> params;    // indices into the parameter list, in bucket order
  std::vector<int64_t> offsets;  // where each parameter starts in the flat buffer
  int64_t numel = 0;
  int64_t padded_numel = 0;
  int64_t group = 0;
  int64_t part_numel(int64_t parts) const { return padded_numel / parts; }
};

// DDP's bucketing: the parameters in reverse registration order (the order in which
// backward tends to finish their gradients), consecutive ones sharing a bucket while it stays
// within `cap_bytes` (a larger parameter gets a bucket of its own) and they share dtype,
// device and `group_of` entry. Each bucket is padded to a multiple of `parts`.
std::vector<GradientBucket> plan_gradient_buckets(const std::vector<at::Tensor>& params,
                                                  const std::vector<int64_t>& group_of,
                                                  int64_t cap_bytes, int64_t parts);

// The bucket's gradients in one flat tensor of `padded_numel` elements (zeros for a parameter
// without a gradient and for the padding).
at::Tensor flatten_bucket_gradients(const GradientBucket& bucket,
                                    const std::vector<at::Tensor>& params);

// The `parts`-th share `part` of the bucket's flat layout: where parameter `k` of the bucket
// overlaps it, as (offset in the parameter's flattened elements, offset in the part, count).
struct PartSlice {
  size_t bucket_param = 0;
  int64_t param_offset = 0;
  int64_t part_offset = 0;
  int64_t count = 0;
};
std::vector<PartSlice> part_slices(const GradientBucket& bucket,
                                   const std::vector<at::Tensor>& params, int64_t part,
                                   int64_t parts);

}  // namespace olv2
