#include "olv2/models/bev/spatial_cross_attention.h"

#include <torch/torch.h>

#include "olv2/util/error.h"

namespace olv2 {

SpatialCrossAttentionImpl::SpatialCrossAttentionImpl(const SpatialCrossAttentionOptions& options)
    : options_(options) {
  if (options.deformable_attention.embed_dims != options.embed_dims) {
    throw input_error("SpatialCrossAttention: embed_dims " + std::to_string(options.embed_dims) +
                      " but the deformable attention has " +
                      std::to_string(options.deformable_attention.embed_dims));
  }
  dropout_ = register_module("dropout", torch::nn::Dropout(options.dropout));
  deformable_attention_ = register_module("deformable_attention",
                                          MsDeformableAttention3d(options.deformable_attention));
  output_proj_ =
      register_module("output_proj", torch::nn::Linear(options.embed_dims, options.embed_dims));
  reset_parameters();
}

void SpatialCrossAttentionImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  torch::nn::init::xavier_uniform_(output_proj_->weight);
  output_proj_->bias.zero_();
}

at::Tensor SpatialCrossAttentionImpl::forward(const at::Tensor& query, const at::Tensor& tokens,
                                              const CameraReferencePoints& camera_points,
                                              const SpatialShapes& spatial_shapes) {
  const int64_t batch = query.size(0), num_query = query.size(1);
  const int64_t cams = options_.num_cams, dims = options_.embed_dims;
  if (tokens.dim() != 4 || tokens.size(0) != batch || tokens.size(1) != cams ||
      camera_points.mask.size(0) != cams || camera_points.mask.size(1) != batch ||
      camera_points.mask.size(2) != num_query) {
    throw runtime_error("SpatialCrossAttention: expected tokens [" + std::to_string(batch) + ", " +
                        std::to_string(cams) + ", S, E] and camera points [" +
                        std::to_string(cams) + ", " + std::to_string(batch) + ", " +
                        std::to_string(num_query) + ", D]");
  }
  const int64_t anchors = camera_points.points.size(3);
  // Every (sample, camera) pair as one batch entry, sample-major.
  const at::Tensor queries = query.unsqueeze(1)
                                 .expand({batch, cams, num_query, dims})
                                 .reshape({batch * cams, num_query, dims});
  const at::Tensor reference_points =
      camera_points.points.transpose(0, 1).reshape({batch * cams, num_query, anchors, 2});
  const at::Tensor per_camera = deformable_attention_
                                    ->forward(queries, tokens.reshape({batch * cams, -1, dims}),
                                              reference_points, spatial_shapes)
                                    .view({batch, cams, num_query, dims});

  const at::Tensor seen = camera_points.mask.any(-1);  // [N_cam, B, Q]
  const at::Tensor selected = seen.select(1, 0).view({1, cams, num_query, 1});
  const at::Tensor slots =
      torch::where(selected, per_camera, torch::zeros({}, per_camera.options())).sum(1);
  const at::Tensor count = seen.sum(0).clamp_min(1).unsqueeze(-1);  // [B, Q, 1]
  return query + dropout_->forward(output_proj_->forward(slots / count));
}

}  // namespace olv2
