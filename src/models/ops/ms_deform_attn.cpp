#include "olv2/models/ops/ms_deform_attn.h"

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

namespace {

constexpr int64_t kBilinear = 0;  // grid_sampler's interpolation_mode
constexpr int64_t kZeros = 0;     // grid_sampler's padding_mode

// One level's operands in grid_sample's layout.
struct LevelOperands {
  at::Tensor value;    // [B*H, D, h, w]
  at::Tensor grid;     // [B*H, Q, P, 2] in [-1, 1]
  at::Tensor weights;  // [B*H, 1, Q, P]
};

// `start`: the level's first token (level_start_index).
LevelOperands level_operands(const at::Tensor& value, const SpatialShapes& shapes, int64_t start,
                             const at::Tensor& locations, const at::Tensor& weights,
                             int64_t level) {
  const int64_t batch = value.size(0), heads = value.size(2), dims = value.size(3);
  const auto [h, w] = shapes[static_cast<size_t>(level)];
  LevelOperands op;
  // [B, h*w, H, D] -> [B*H, D, h, w]
  op.value =
      value.narrow(1, start, h * w).flatten(2).transpose(1, 2).reshape({batch * heads, dims, h, w});
  // [B, Q, H, P, 2] -> [B*H, Q, P, 2]
  op.grid = (locations.select(3, level) * 2 - 1).transpose(1, 2).flatten(0, 1);
  // [B, Q, H, P] -> [B*H, 1, Q, P]
  op.weights = weights.select(3, level).transpose(1, 2).flatten(0, 1).unsqueeze(1);
  return op;
}

at::Tensor sample(const LevelOperands& op) {
  return at::grid_sampler(op.value, op.grid, kBilinear, kZeros, /*align_corners=*/false);
}

// The sampling with its own backward, as mmcv's CUDA kernel: nothing of the size of the samples
// ([B*H, D, Q, L*P], the largest tensor of a deformable attention) is kept for backward; the
// backward samples each level again. Once differentiable (no double backward).
class MsDeformAttnFunction : public torch::autograd::Function<MsDeformAttnFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& value,
                            const at::Tensor& locations, const at::Tensor& weights,
                            const std::vector<int64_t>& flat_shapes) {
    ctx->save_for_backward({value, locations, weights});
    ctx->saved_data["shapes"] = flat_shapes;
    const SpatialShapes shapes = unflatten(flat_shapes);
    const std::vector<int64_t> starts = level_start_index(shapes);
    const int64_t batch = value.size(0), heads = value.size(2), dims = value.size(3);
    const int64_t queries = locations.size(1);
    at::Tensor out = torch::zeros({batch * heads, dims, queries}, value.options());
    for (int64_t l = 0; l < static_cast<int64_t>(shapes.size()); ++l) {
      const LevelOperands op =
          level_operands(value, shapes, starts[static_cast<size_t>(l)], locations, weights, l);
      out.add_((sample(op) * op.weights).sum(-1));
    }
    return out.view({batch, heads * dims, queries}).transpose(1, 2).contiguous();
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &value = saved[0], &locations = saved[1], &weights = saved[2];
    const SpatialShapes shapes = unflatten(ctx->saved_data["shapes"].toIntVector());
    const std::vector<int64_t> starts = level_start_index(shapes);
    const int64_t batch = value.size(0), heads = value.size(2), dims = value.size(3);
    const int64_t queries = locations.size(1);
    const bool want_value = ctx->needs_input_grad(0), want_locations = ctx->needs_input_grad(1),
               want_weights = ctx->needs_input_grad(2);
    // [B, Q, H*D] -> [B*H, D, Q, 1]
    const at::Tensor grad_out = grad_outputs[0]
                                    .view({batch, queries, heads, dims})
                                    .permute({0, 2, 3, 1})
                                    .reshape({batch * heads, dims, queries, 1});
    std::vector<at::Tensor> grad_values, grad_locations, grad_weights;
    for (int64_t l = 0; l < static_cast<int64_t>(shapes.size()); ++l) {
      const LevelOperands op =
          level_operands(value, shapes, starts[static_cast<size_t>(l)], locations, weights, l);
      if (want_weights) {
        // [B*H, Q, P] -> [B, Q, H, P]
        const at::Tensor g = (sample(op) * grad_out).sum(1);
        grad_weights.push_back(g.view({batch, heads, queries, -1}).transpose(1, 2));
      }
      if (!want_value && !want_locations) continue;
      auto [grad_value, grad_grid] =
          at::grid_sampler_2d_backward(grad_out * op.weights, op.value, op.grid, kBilinear, kZeros,
                                       /*align_corners=*/false, {want_value, want_locations});
      if (want_value) {
        // [B*H, D, h, w] -> [B, h*w, H, D]
        grad_values.push_back(grad_value.view({batch, heads, dims, -1}).permute({0, 3, 1, 2}));
      }
      if (want_locations) {
        // d grid / d location = 2; [B*H, Q, P, 2] -> [B, Q, H, P, 2]
        grad_locations.push_back(
            (grad_grid * 2).view({batch, heads, queries, -1, 2}).transpose(1, 2));
      }
    }
    return {want_value ? torch::cat(grad_values, 1) : at::Tensor(),
            want_locations ? torch::stack(grad_locations, 3) : at::Tensor(),
            want_weights ? torch::stack(grad_weights, 3) : at::Tensor(), at::Tensor()};
  }

 private:
  static SpatialShapes unflatten(const std::vector<int64_t>& flat) {
    SpatialShapes shapes;
    for (size_t i = 0; i + 1 < flat.size(); i += 2) shapes.emplace_back(flat[i], flat[i + 1]);
    return shapes;
  }
};

}  // namespace

at::Tensor ms_deform_attn(const at::Tensor& value, const SpatialShapes& spatial_shapes,
                          const at::Tensor& locations, const at::Tensor& weights) {
  const int64_t num_levels = static_cast<int64_t>(spatial_shapes.size());
  if (value.dim() != 4 || locations.dim() != 6 || weights.dim() != 5 ||
      locations.size(3) != num_levels || locations.size(-1) != 2 ||
      weights.sizes() != locations.sizes().slice(0, 5) || value.size(0) != locations.size(0) ||
      value.size(2) != locations.size(2)) {
    throw runtime_error("ms_deform_attn: expected value [B, S, H, D], locations [B, Q, H, " +
                        std::to_string(num_levels) + ", P, 2] and weights [B, Q, H, " +
                        std::to_string(num_levels) + ", P]");
  }
  int64_t total_tokens = 0;
  std::vector<int64_t> flat_shapes;
  for (const auto& [h, w] : spatial_shapes) {
    total_tokens += h * w;
    flat_shapes.push_back(h);
    flat_shapes.push_back(w);
  }
  if (value.size(1) != total_tokens) {
    throw runtime_error("ms_deform_attn: value has " + std::to_string(value.size(1)) +
                        " tokens, the spatial shapes " + std::to_string(total_tokens));
  }
  // The original's CUDA kernel and its CPU fallback both compute in float32.
  const AutocastOff float32;
  return MsDeformAttnFunction::apply(value.to(at::kFloat).contiguous(),
                                     locations.to(at::kFloat).contiguous(),
                                     weights.to(at::kFloat).contiguous(), flat_shapes);
}

}  // namespace olv2
