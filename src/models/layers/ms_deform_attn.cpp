#include "olv2/models/layers/ms_deform_attn.h"

#include <torch/torch.h>

#include "olv2/util/autocast_guard.h"
#include "olv2/util/error.h"

namespace olv2 {

std::vector<int64_t> level_start_index(const SpatialShapes& spatial_shapes) {
  std::vector<int64_t> starts;
  int64_t start = 0;
  for (const auto& [h, w] : spatial_shapes) {
    starts.push_back(start);
    start += h * w;
  }
  return starts;
}

at::Tensor ms_deform_attn(const at::Tensor& value, const SpatialShapes& spatial_shapes,
                          const at::Tensor& locations, const at::Tensor& weights) {
  const int64_t num_levels = static_cast<int64_t>(spatial_shapes.size());
  if (value.dim() != 4 || locations.dim() != 6 || weights.dim() != 5 ||
      locations.size(3) != num_levels || locations.size(-1) != 2 ||
      weights.sizes() != locations.sizes().slice(0, 5)) {
    throw runtime_error("ms_deform_attn: expected value [B, S, H, D], locations [B, Q, H, " +
                        std::to_string(num_levels) + ", P, 2] and weights [B, Q, H, " +
                        std::to_string(num_levels) + ", P]");
  }
  const int64_t batch = value.size(0), heads = value.size(2), dims = value.size(3);
  const int64_t queries = locations.size(1), points = locations.size(4);
  int64_t total_tokens = 0;
  std::vector<int64_t> level_tokens;
  for (const auto& [h, w] : spatial_shapes) {
    level_tokens.push_back(h * w);
    total_tokens += h * w;
  }
  if (value.size(1) != total_tokens) {
    throw runtime_error("ms_deform_attn: value has " + std::to_string(value.size(1)) +
                        " tokens, the spatial shapes " + std::to_string(total_tokens));
  }

  // The original's CUDA kernel and its CPU fallback both compute in float32.
  const AutocastGuard cpu_fp32(c10::kCPU, AutocastState{false});
  const AutocastGuard cuda_fp32(c10::kCUDA, AutocastState{false});
  const at::Tensor v = value.to(at::kFloat);
  const at::Tensor grids = locations.to(at::kFloat) * 2 - 1;
  const std::vector<at::Tensor> per_level = v.split_with_sizes(level_tokens, 1);
  std::vector<at::Tensor> sampled;
  sampled.reserve(static_cast<size_t>(num_levels));
  for (int64_t l = 0; l < num_levels; ++l) {
    const auto [h, w] = spatial_shapes[static_cast<size_t>(l)];
    // [B, h*w, H, D] -> [B*H, D, h, w]
    const at::Tensor level_value =
        per_level[static_cast<size_t>(l)].flatten(2).transpose(1, 2).reshape(
            {batch * heads, dims, h, w});
    // [B, Q, H, P, 2] -> [B*H, Q, P, 2]
    const at::Tensor level_grid = grids.select(3, l).transpose(1, 2).flatten(0, 1);
    sampled.push_back(
        torch::nn::functional::grid_sample(level_value, level_grid,
                                           torch::nn::functional::GridSampleFuncOptions()
                                               .mode(torch::kBilinear)
                                               .padding_mode(torch::kZeros)
                                               .align_corners(false)));
  }
  // [B*H, D, Q, L*P] weighted and summed over (level, point) in one reduction, as the original.
  const at::Tensor stacked = torch::stack(sampled, -2).flatten(-2);
  const at::Tensor w = weights.to(at::kFloat)
                           .transpose(1, 2)
                           .reshape({batch * heads, 1, queries, num_levels * points});
  return (stacked * w).sum(-1).view({batch, heads * dims, queries}).transpose(1, 2).contiguous();
}

}  // namespace olv2
