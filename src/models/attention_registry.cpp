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
  // TopoNet's copy of BEVFormer's temporal self-attention (and LaneSegNet's, the same code),
  // which TopoNet's configs name `TemporalSelfAttention` as the plug-in's: read in the scope
  // `toponet`.
  const AttentionRegistry::Entry toponet_temporal_self_attention{
      TemporalSelfAttentionOptions::schema("toponet.TemporalSelfAttention"),
      [](const ConfigNode& section,
         const std::string& /*scope*/) -> std::shared_ptr<const AttentionOptions> {
        return std::make_shared<const TemporalSelfAttentionOptions>(
            TemporalSelfAttentionOptions::from_config(section,
                                                      TemporalSelfAttentionCode::kTopoNet));
      }};
  static const AttentionRegistry registry(
      "attention",
      {
          {"CustomMSDeformableAttention", deformable("CustomMSDeformableAttention")},
          {"MSDeformableAttention3D", AttentionRegistry::entry<MsDeformableAttention3dOptions>()},
          {"MultiScaleDeformableAttention", deformable("MultiScaleDeformableAttention")},
          {"MultiheadAttention", AttentionRegistry::entry<MultiheadAttentionOptions>()},
          {"SpatialCrossAttention", AttentionRegistry::entry<SpatialCrossAttentionOptions>()},
          {"TemporalSelfAttention", AttentionRegistry::entry<TemporalSelfAttentionOptions>()},
          {"toponet.TemporalSelfAttention", toponet_temporal_self_attention},
      });
  return registry;
}

}  // namespace olv2
