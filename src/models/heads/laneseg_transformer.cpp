#include "olv2/models/heads/laneseg_transformer.h"

#include <torch/torch.h>

#include <algorithm>
#include <string>
#include <vector>

#include "olv2/models/heads/lane_branches.h"
#include "olv2/models/heads/lane_regression.h"
#include "olv2/models/heads/lane_transformer_init.h"
#include "olv2/models/layers/deformable_detr_transformer.h"
#include "olv2/models/layers/transformer_layer.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

TransformerLayerOptions decoder_layer_options(const LaneSegNetTransformerOptions& options) {
  TransformerLayerOptions layer =
      bev_decoder_layer(options.self_attention, options.cross_attention);
  layer.ffn = options.ffn;
  return layer;
}

void check_options(const LaneSegNetTransformerOptions& options) {
  require_bev_decoder_layer("LaneSegNetTransformer", options.embed_dims,
                            decoder_layer_options(options));
  if (!options.cross_attention.per_head_reference_points) {
    throw input_error("LaneSegNetDecoder: its cross-attention must be a LaneAttention");
  }
  const int64_t reference_points = 2 * static_cast<int64_t>(options.sample_idx.size());
  if (options.cross_attention.num_heads != reference_points) {
    throw input_error(
        "LaneSegNetDecoder: LaneAttention's head k samples around reference point "
        "k, and there are " +
        std::to_string(reference_points) + " (sample_idx on each boundary), so num_heads must be " +
        std::to_string(reference_points) + ", got " +
        std::to_string(options.cross_attention.num_heads));
  }
  for (int64_t index : options.sample_idx) {
    if (index < 0 || index >= options.points_num) {
      throw input_error("LaneSegNetDecoder: sample_idx " + std::to_string(index) +
                        " is not a point of lines of points_num " +
                        std::to_string(options.points_num));
    }
  }
  if (options.pts_dim != 2 && options.pts_dim != 3) {
    throw input_error("LaneSegNetTransformer: pts_dim must be 2 or 3, got " +
                      std::to_string(options.pts_dim));
  }
  if (options.num_layers < 1) {
    throw input_error("LaneSegNetDecoder: num_layers must be at least 1, got " +
                      std::to_string(options.num_layers));
  }
}

// Lane points in metres [..., pts_dim] -> normalised over `range` (no clamp).
at::Tensor normalized_in_range(const at::Tensor& points, const BevRange& range) {
  const int64_t pts_dim = points.size(-1);
  std::vector<double> low, size;
  for (int64_t d = 0; d < pts_dim; ++d) {
    low.push_back(range[static_cast<size_t>(d)]);
    size.push_back(range[static_cast<size_t>(d) + 3] - range[static_cast<size_t>(d)]);
  }
  return (points - torch::tensor(low, points.options())) / torch::tensor(size, points.options());
}

}  // namespace

at::Tensor lane_segments_from_regression(const at::Tensor& center_regression,
                                         const at::Tensor& offset, const at::Tensor& reference,
                                         const BevRange& range, at::Tensor* refined) {
  const at::Tensor normalized =
      (center_regression.to(torch::kFloat).view(reference.sizes()) + inverse_sigmoid(reference))
          .sigmoid();
  if (refined != nullptr) *refined = normalized;
  const at::Tensor centerline = points_in_range(normalized, range).flatten(2);
  const at::Tensor boundary = offset.to(torch::kFloat);
  return torch::cat({centerline, centerline + boundary, centerline - boundary}, -1);
}

LaneSegNetTransformerImpl::LaneSegNetTransformerImpl(const LaneSegNetTransformerOptions& options)
    : options_(options) {
  check_options(options);
  auto decoder = register_module("decoder", std::make_shared<torch::nn::Module>());
  layers_ = decoder->register_module(
      "layers", transformer_layers(decoder_layer_options(options), options.num_layers));
  reference_points_ =
      register_module("reference_points", torch::nn::Linear(options.embed_dims, options.pts_dim));
  reset_parameters();
}

void LaneSegNetTransformerImpl::reset_parameters() {
  init_lane_transformer(*this, reference_points_);
}

void LaneSegNetTransformerImpl::set_dropout(double p) {
  for (const auto& module : *layers_) module->as<TransformerLayer>()->set_dropout(p);
}

LaneSegNetDecoderOutputs LaneSegNetTransformerImpl::forward(const at::Tensor& bev_feats,
                                                            const at::Tensor& query_embedding,
                                                            int64_t bev_h, int64_t bev_w,
                                                            torch::nn::ModuleListImpl& reg_center,
                                                            torch::nn::ModuleListImpl& reg_offset) {
  const int64_t batch = bev_feats.size(0);
  const int64_t num_layers = options_.num_layers;
  const int64_t pts_dim = options_.pts_dim;
  if (bev_feats.dim() != 3 || bev_feats.size(1) != bev_h * bev_w) {
    throw runtime_error("LaneSegNetTransformer: BEV features " + c10::str(bev_feats.sizes()) +
                        ", expected [B, " + std::to_string(bev_h * bev_w) + ", E]");
  }
  if (static_cast<int64_t>(reg_center.size()) != num_layers ||
      static_cast<int64_t>(reg_offset.size()) != num_layers) {
    throw runtime_error("LaneSegNetDecoder: one regression branch per decoder layer needed");
  }
  const auto halves = query_embedding.split(options_.embed_dims, 1);
  const at::Tensor query_pos = halves[0].unsqueeze(0).expand({batch, -1, -1});  // [B, Q, E]
  const at::Tensor query = halves[1].unsqueeze(0).expand({batch, -1, -1});
  const int64_t num_queries = query.size(1);

  LaneSegNetDecoderOutputs out;
  // One point per query, the same for every centerline point.
  out.init_reference = reference_points_(query_pos).sigmoid().unsqueeze(2).expand(
      {batch, num_queries, options_.points_num, pts_dim});
  std::vector<int64_t> twice = options_.sample_idx;
  twice.insert(twice.end(), options_.sample_idx.begin(), options_.sample_idx.end());
  const at::Tensor first_points = torch::tensor(twice, torch::kLong).to(bev_feats.device());
  const at::Tensor boundary_points =
      torch::tensor(options_.sample_idx, torch::kLong).to(bev_feats.device());
  at::Tensor lane_reference = out.init_reference.index_select(2, first_points);

  const SpatialShapes bev_shape{{bev_h, bev_w}};
  TransformerLayerInputs inputs;
  inputs.value = bev_feats.permute({1, 0, 2});
  inputs.query_pos = query_pos.permute({1, 0, 2});
  inputs.spatial_shapes = &bev_shape;

  at::Tensor reference = out.init_reference;
  at::Tensor output = query.permute({1, 0, 2});
  std::vector<at::Tensor> states, references, attention_references, lanes;
  for (int64_t l = 0; l < num_layers; ++l) {
    inputs.reference_points = lane_reference.narrow(-1, 0, 2).unsqueeze(2);  // [B, Q, 1, 8, 2]
    attention_references.push_back(inputs.reference_points);
    output = layers_[l]->as<TransformerLayer>()->forward(output, inputs);
    const at::Tensor state = output.permute({1, 0, 2});  // [B, Q, E]

    at::Tensor refined;
    lanes.push_back(lane_segments_from_regression(
        run_branch(*reg_center[l]->as<torch::nn::ModuleList>(), state),
        run_branch(*reg_offset[l]->as<torch::nn::ModuleList>(), state), reference,
        options_.pc_range, &refined));
    reference = refined.detach();

    // Points sample_idx of the left (values P * pts_dim ...) and right boundary.
    const int64_t line_values = options_.points_num * pts_dim;
    const auto boundary = [&](int64_t line) {
      return lanes.back()
          .detach()
          .narrow(-1, line * line_values, line_values)
          .reshape({batch, num_queries, -1, pts_dim})
          .index_select(2, boundary_points);
    };
    lane_reference =
        normalized_in_range(torch::cat({boundary(1), boundary(2)}, -2), options_.pc_range);
    states.push_back(state);
    references.push_back(reference);
  }
  out.inter_states = torch::stack(states);
  out.inter_references = torch::stack(references);
  out.attention_references = torch::stack(attention_references);
  out.lanes = torch::stack(lanes);
  return out;
}

}  // namespace olv2
