// The deformable sampling against a scalar loop that follows its definition (bilinear
// interpolation with half-pixel centres and zero padding), forward and backward.
#include "olv2/models/ops/ms_deform_attn.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "olv2/models/layers/multi_scale_deformable_attention.h"

namespace olv2 {
namespace {

struct LoopResult {
  at::Tensor output;       // [B, Q, H*D]
  at::Tensor grad_value;   // d(sum(output * upstream)) / d value
  at::Tensor grad_loc;     // ... / d locations
  at::Tensor grad_weight;  // ... / d weights
};

// Every sample point: out += w * sum over the 4 neighbours inside the grid of c_k * v[k].
LoopResult deform_loop(const at::Tensor& value, const SpatialShapes& shapes, const at::Tensor& loc,
                       const at::Tensor& weights, const at::Tensor& upstream) {
  const at::Tensor v = value.to(torch::kDouble), l = loc.to(torch::kDouble),
                   w = weights.to(torch::kDouble), g = upstream.to(torch::kDouble);
  const int64_t B = v.size(0), H = v.size(2), D = v.size(3), Q = l.size(1), L = l.size(3),
                P = l.size(4);
  LoopResult r;
  r.output = torch::zeros({B, Q, H * D}, torch::kDouble);
  r.grad_value = torch::zeros_like(v);
  r.grad_loc = torch::zeros_like(l);
  r.grad_weight = torch::zeros_like(w);
  auto va = v.accessor<double, 4>();
  auto la = l.accessor<double, 6>();
  auto wa = w.accessor<double, 5>();
  auto ga = g.accessor<double, 3>();
  auto out = r.output.accessor<double, 3>();
  auto gv = r.grad_value.accessor<double, 4>();
  auto gl = r.grad_loc.accessor<double, 6>();
  auto gw = r.grad_weight.accessor<double, 5>();
  const std::vector<int64_t> starts = level_start_index(shapes);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t q = 0; q < Q; ++q)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t lv = 0; lv < L; ++lv) {
          const auto [height, width] = shapes[static_cast<size_t>(lv)];
          for (int64_t p = 0; p < P; ++p) {
            const double x = la[b][q][h][lv][p][0] * width - 0.5;
            const double y = la[b][q][h][lv][p][1] * height - 0.5;
            const double x0 = std::floor(x), y0 = std::floor(y);
            const double fx = x - x0, fy = y - y0;
            const double weight = wa[b][q][h][lv][p];
            for (int64_t d = 0; d < D; ++d) {
              double sample = 0, dsample_dx = 0, dsample_dy = 0;
              for (int corner = 0; corner < 4; ++corner) {
                const int64_t cx = static_cast<int64_t>(x0) + (corner & 1);
                const int64_t cy = static_cast<int64_t>(y0) + (corner >> 1);
                if (cx < 0 || cy < 0 || cx >= width || cy >= height) continue;
                const double wx = (corner & 1) ? fx : 1 - fx, wy = (corner >> 1) ? fy : 1 - fy;
                const double dwx = (corner & 1) ? 1 : -1, dwy = (corner >> 1) ? 1 : -1;
                const int64_t token = starts[static_cast<size_t>(lv)] + cy * width + cx;
                const double val = va[b][token][h][d];
                sample += wx * wy * val;
                dsample_dx += dwx * wy * val;
                dsample_dy += wx * dwy * val;
                gv[b][token][h][d] += ga[b][q][h * D + d] * weight * wx * wy;
              }
              out[b][q][h * D + d] += weight * sample;
              const double up = ga[b][q][h * D + d];
              gw[b][q][h][lv][p] += up * sample;
              gl[b][q][h][lv][p][0] += up * weight * dsample_dx * width;
              gl[b][q][h][lv][p][1] += up * weight * dsample_dy * height;
            }
          }
        }
  return r;
}

void expect_close(const at::Tensor& actual, const at::Tensor& expected, double tol,
                  const char* what) {
  const double err = (actual.to(torch::kDouble) - expected).abs().max().item<double>();
  EXPECT_LT(err, tol) << what << ": max |difference| " << err;
}

TEST(MsDeformAttn, EqualsTheDirectLoopForwardAndBackward) {
  torch::manual_seed(11);
  const SpatialShapes shapes{{5, 7}, {3, 4}, {1, 2}};
  const int64_t B = 2, H = 3, D = 4, Q = 6, L = 3, P = 5;
  const at::Tensor value = torch::randn({B, 35 + 12 + 2, H, D}).requires_grad_();
  // Locations reach outside [0, 1] so that zero padding and partial corners are exercised.
  const at::Tensor loc = (torch::rand({B, Q, H, L, P, 2}) * 1.4 - 0.2).requires_grad_();
  const at::Tensor weights = torch::rand({B, Q, H, L, P}).requires_grad_();
  const at::Tensor upstream = torch::randn({B, Q, H * D});

  const at::Tensor out = ms_deform_attn(value, shapes, loc, weights);
  (out * upstream).sum().backward();
  const LoopResult expected =
      deform_loop(value.detach(), shapes, loc.detach(), weights.detach(), upstream);
  ASSERT_EQ(out.sizes(), expected.output.sizes());
  expect_close(out, expected.output, 1e-5, "output");
  expect_close(value.grad(), expected.grad_value, 1e-5, "value gradient");
  expect_close(weights.grad(), expected.grad_weight, 1e-5, "weight gradient");
  expect_close(loc.grad(), expected.grad_loc, 1e-4, "location gradient");
}

TEST(MsDeformAttn, ComputesInFloat32UnderLowerPrecisionInputs) {
  torch::manual_seed(12);
  const SpatialShapes shapes{{4, 4}};
  const at::Tensor value = torch::randn({1, 16, 2, 3}).to(torch::kBFloat16);
  const at::Tensor loc = torch::rand({1, 5, 2, 1, 2, 2});
  const at::Tensor weights = torch::rand({1, 5, 2, 1, 2});
  const at::Tensor out = ms_deform_attn(value, shapes, loc, weights);
  EXPECT_EQ(out.scalar_type(), torch::kFloat);
  const LoopResult expected =
      deform_loop(value.to(torch::kFloat), shapes, loc, weights, torch::zeros({1, 5, 6}));
  expect_close(out, expected.output, 1e-5, "output");
}

TEST(MsDeformAttn, RejectsMismatchedShapes) {
  const SpatialShapes shapes{{4, 4}};
  EXPECT_THROW(ms_deform_attn(torch::zeros({1, 15, 2, 3}), shapes, torch::zeros({1, 5, 2, 1, 2, 2}),
                              torch::zeros({1, 5, 2, 1, 2})),
               std::exception);
  EXPECT_THROW(ms_deform_attn(torch::zeros({1, 16, 2, 3}), shapes, torch::zeros({1, 5, 2, 2, 2, 2}),
                              torch::zeros({1, 5, 2, 2, 2})),
               std::exception);
}

// The attention around the sampling: with zero offsets every head samples its reference point;
// a 4-D reference scales the offsets by half the box over the number of points.
TEST(MultiScaleDeformableAttention, SamplesAtReferencePointsAndScalesBoxOffsets) {
  torch::manual_seed(13);
  MultiScaleDeformableAttentionOptions options;
  options.embed_dims = 8;
  options.num_heads = 2;
  options.num_levels = 2;
  options.num_points = 2;
  options.dropout = 0.0;
  MultiScaleDeformableAttention attention(options);
  const SpatialShapes shapes{{3, 4}, {2, 2}};
  const at::Tensor query = torch::randn({5, 1, 8});
  const at::Tensor value = torch::randn({16, 1, 8});
  const at::Tensor ref2 = torch::rand({1, 5, 2, 2});
  at::Tensor ref4 = torch::cat({ref2, torch::rand({1, 5, 2, 2})}, -1);
  auto params = attention->named_parameters();
  at::Tensor expected2, expected4;
  {
    torch::NoGradGuard no_grad;
    params["sampling_offsets.bias"].uniform_(-1, 1);
    params["attention_weights.weight"].normal_();
    // By hand: project, soft-max, sample with the loop, project back, add the residual.
    const at::Tensor v =
        torch::linear(value.transpose(0, 1), params["value_proj.weight"], params["value_proj.bias"])
            .view({1, 16, 2, 4});
    const at::Tensor q = query.transpose(0, 1);
    const at::Tensor off =
        torch::linear(q, params["sampling_offsets.weight"], params["sampling_offsets.bias"])
            .view({1, 5, 2, 2, 2, 2});
    const at::Tensor w =
        torch::linear(q, params["attention_weights.weight"], params["attention_weights.bias"])
            .view({1, 5, 2, 4})
            .softmax(-1)
            .view({1, 5, 2, 2, 2});
    const at::Tensor wh = torch::tensor({4.0f, 3.0f, 2.0f, 2.0f}).view({1, 1, 1, 2, 1, 2});
    const at::Tensor loc2 = ref2.unsqueeze(2).unsqueeze(4) + off / wh;
    const at::Tensor r4 = ref4.unsqueeze(2).unsqueeze(4);
    const at::Tensor loc4 = r4.narrow(-1, 0, 2) + off / 2.0 * r4.narrow(-1, 2, 2) * 0.5;
    auto finish = [&](const at::Tensor& loc) {
      const at::Tensor sampled =
          deform_loop(v, shapes, loc, w, torch::zeros({1, 5, 8})).output.to(torch::kFloat);
      return torch::linear(sampled, params["output_proj.weight"], params["output_proj.bias"])
                 .transpose(0, 1) +
             query;
    };
    expected2 = finish(loc2);
    expected4 = finish(loc4);
  }
  const at::Tensor none;
  EXPECT_TRUE(torch::allclose(attention->forward(query, value, none, none, none, ref2, shapes),
                              expected2, 1e-5, 1e-5));
  EXPECT_TRUE(torch::allclose(attention->forward(query, value, none, none, none, ref4, shapes),
                              expected4, 1e-5, 1e-5));
  // Masked value tokens contribute nothing: masking all of them leaves only the residual and
  // the output projection's bias.
  const at::Tensor all_masked = torch::ones({1, 16}, torch::kBool);
  const at::Tensor masked = attention->forward(query, value, none, none, all_masked, ref2, shapes);
  EXPECT_TRUE(torch::allclose(masked, query + params["output_proj.bias"].detach(), 1e-6, 1e-6));
}

TEST(MultiScaleDeformableAttention, OffsetBiasInitPointsEachHeadInItsOwnDirection) {
  const at::Tensor bias = deformable_offset_bias_init(4, 2, 3).view({4, 2, 3, 2});
  // Head 1 of 4 looks along +y (angle pi/2), point p at distance p + 1, on every level.
  EXPECT_NEAR(bias[1][1][2][0].item<float>(), 0.0f, 1e-6);
  EXPECT_NEAR(bias[1][1][2][1].item<float>(), 3.0f, 1e-6);
  // Head 0 along +x; head 2 along -x.
  EXPECT_NEAR(bias[0][0][0][0].item<float>(), 1.0f, 1e-6);
  EXPECT_NEAR(bias[2][0][1][0].item<float>(), -2.0f, 1e-6);
}

}  // namespace
}  // namespace olv2
