#include "olv2/models/bev/spatial_cross_attention.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema SpatialCrossAttentionOptions::schema() {
  Schema schema = typed_schema("SpatialCrossAttention");
  schema.optional("embed_dims", Schema::integer())
      .optional("num_cams", Schema::integer())
      .optional("pc_range", numbers_schema())
      .optional("dropout", ratio_schema())
      .optional("batch_first", Schema::boolean())
      // Its own type's schema: the attention registry's holds this one.
      .optional("deformable_attention", MsDeformableAttention3dOptions::schema());
  return schema;
}

SpatialCrossAttentionOptions SpatialCrossAttentionOptions::from_config(const ConfigNode& section) {
  SpatialCrossAttentionOptions o;
  o.embed_dims = section.get<int64_t>("embed_dims", o.embed_dims);
  o.num_cams = section.get<int64_t>("num_cams", o.num_cams);
  o.dropout = section.get<double>("dropout", o.dropout);
  if (const ConfigNode* deformable = section.find("deformable_attention")) {
    o.deformable_attention =
        read_attention<MsDeformableAttention3dOptions>(*deformable, "MSDeformableAttention3D");
  }
  return o;
}

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

at::Tensor SpatialCrossAttentionImpl::summed_over_cameras(const at::Tensor& query,
                                                          const at::Tensor& tokens,
                                                          const at::Tensor& points,
                                                          const at::Tensor& selected,
                                                          const SpatialShapes& spatial_shapes) {
  const int64_t batch = query.size(0), num_query = query.size(1);
  const int64_t cams = options_.num_cams, dims = options_.embed_dims, anchors = points.size(3);
  const at::Tensor counts = selected.sum(-1);  // [N_cam]
  const int64_t max_len = counts.max().item<int64_t>();
  if (max_len == 0) return torch::zeros({batch, num_query, dims}, query.options());
  // Per camera its selected queries first (the rest pad the row to max_len); each row is a
  // prefix of a permutation, so scattering back writes every slot at most once.
  const at::Tensor order =
      std::get<1>(selected.to(torch::kByte).sort(/*stable=*/true, -1, /*descending=*/true))
          .narrow(-1, 0, max_len);  // [N_cam, L]
  const at::Tensor valid =
      torch::arange(max_len, counts.options()).unsqueeze(0) < counts.unsqueeze(1);
  const at::Tensor queries =
      query.index_select(1, order.flatten()).view({batch * cams, max_len, dims});
  const at::Tensor reference_points =
      torch::take_along_dim(points.transpose(0, 1), order.view({1, cams, max_len, 1, 1}),
                            2)  // [B, N_cam, L, D, 2]
          .reshape({batch * cams, max_len, anchors, 2});
  const at::Tensor sampled = deformable_attention_
                                 ->forward(queries, tokens.reshape({batch * cams, -1, dims}),
                                           reference_points, spatial_shapes)
                                 .view({batch, cams, max_len, dims});
  const at::Tensor kept =
      torch::where(valid.view({1, cams, max_len, 1}), sampled, torch::zeros({}, sampled.options()));
  const at::Tensor per_camera =
      torch::zeros({batch, cams, num_query, dims}, kept.options())
          .scatter(2, order.view({1, cams, max_len, 1}).expand({batch, cams, max_len, dims}), kept);
  return per_camera.sum(1);
}

at::Tensor SpatialCrossAttentionImpl::forward(const at::Tensor& query, const at::Tensor& tokens,
                                              const CameraReferencePoints& camera_points,
                                              const SpatialShapes& spatial_shapes) {
  const int64_t batch = query.size(0), num_query = query.size(1);
  const int64_t cams = options_.num_cams;
  if (tokens.dim() != 4 || tokens.size(0) != batch || tokens.size(1) != cams ||
      camera_points.mask.size(0) != cams || camera_points.mask.size(1) != batch ||
      camera_points.mask.size(2) != num_query) {
    throw runtime_error("SpatialCrossAttention: expected tokens [" + std::to_string(batch) + ", " +
                        std::to_string(cams) + ", S, E] and camera points [" +
                        std::to_string(cams) + ", " + std::to_string(batch) + ", " +
                        std::to_string(num_query) + ", D]");
  }
  const at::Tensor seen = camera_points.mask.any(-1);  // [N_cam, B, Q]
  const at::Tensor slots =
      summed_over_cameras(query, tokens, camera_points.points, seen.select(1, 0), spatial_shapes);
  const at::Tensor count = seen.sum(0).clamp_min(1).unsqueeze(-1);  // [B, Q, 1]
  return query + dropout_->forward(output_proj_->forward(slots / count));
}

}  // namespace olv2
