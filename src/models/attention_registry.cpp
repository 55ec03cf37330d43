#include "olv2/models/attention_registry.h"

#include "olv2/models/bev/ms_deformable_attention_3d.h"
#include "olv2/models/bev/spatial_cross_attention.h"
#include "olv2/models/bev/temporal_self_attention.h"
#include "olv2/models/layers/multi_scale_deformable_attention.h"
#include "olv2/models/layers/multihead_attention.h"

namespace olv2 {

const Registry<AttentionOptions>& attention_registry() {
  using AttentionRegistry = Registry<AttentionOptions>;
  // mmcv's deformable attention and OpenLane-V2's copy of it compute the same.
  const auto deformable = [](const std::string& type) {
    return AttentionRegistry::Entry{
        MultiScaleDeformableAttentionOptions::schema(type),
        [](const ConfigNode& section,
           const std::string& /*scope*/) -> std::shared_ptr<const AttentionOptions> {
          return std::make_shared<const MultiScaleDeformableAttentionOptions>(
              MultiScaleDeformableAttentionOptions::from_config(section));
        }};
  };
  // TopoNet's copy of BEVFormer's temporal self-attention, which LaneSegNet copied unchanged:
  // their configs name it `TemporalSelfAttention` as the plug-in's, so it is read in the scopes
  // `toponet` and `lanesegnet`.
  const auto toponet_temporal_self_attention = [](const std::string& scoped_type) {
    return AttentionRegistry::Entry{
        TemporalSelfAttentionOptions::schema(scoped_type),
        [](const ConfigNode& section,
           const std::string& /*scope*/) -> std::shared_ptr<const AttentionOptions> {
          return std::make_shared<const TemporalSelfAttentionOptions>(
              TemporalSelfAttentionOptions::from_config(section,
                                                        TemporalSelfAttentionCode::kTopoNet));
        }};
  };
  const AttentionRegistry::Entry lane_attention{
      MultiScaleDeformableAttentionOptions::schema("LaneAttention"),
      [](const ConfigNode& section,
         const std::string& /*scope*/) -> std::shared_ptr<const AttentionOptions> {
        return std::make_shared<const MultiScaleDeformableAttentionOptions>(
            MultiScaleDeformableAttentionOptions::lane_attention_from_config(section));
      }};
  static const AttentionRegistry registry(
      "attention",
      {
          {"CustomMSDeformableAttention", deformable("CustomMSDeformableAttention")},
          {"LaneAttention", lane_attention},
          {"MSDeformableAttention3D", AttentionRegistry::entry<MsDeformableAttention3dOptions>()},
          {"MultiScaleDeformableAttention", deformable("MultiScaleDeformableAttention")},
          {"MultiheadAttention", AttentionRegistry::entry<MultiheadAttentionOptions>()},
          {"SpatialCrossAttention", AttentionRegistry::entry<SpatialCrossAttentionOptions>()},
          {"TemporalSelfAttention", AttentionRegistry::entry<TemporalSelfAttentionOptions>()},
          {"lanesegnet.TemporalSelfAttention",
           toponet_temporal_self_attention("lanesegnet.TemporalSelfAttention")},
          {"toponet.TemporalSelfAttention",
           toponet_temporal_self_attention("toponet.TemporalSelfAttention")},
      });
  return registry;
}

}  // namespace olv2
