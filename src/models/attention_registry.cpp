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
        [](const ConfigNode& section) -> std::shared_ptr<const AttentionOptions> {
          return std::make_shared<const MultiScaleDeformableAttentionOptions>(
              MultiScaleDeformableAttentionOptions::from_config(section));
        }};
  };
  static const AttentionRegistry registry(
      "attention",
      {
          {"CustomMSDeformableAttention", deformable("CustomMSDeformableAttention")},
          {"MSDeformableAttention3D", AttentionRegistry::entry<MsDeformableAttention3dOptions>()},
          {"MultiScaleDeformableAttention", deformable("MultiScaleDeformableAttention")},
          {"MultiheadAttention", AttentionRegistry::entry<MultiheadAttentionOptions>()},
          {"SpatialCrossAttention", AttentionRegistry::entry<SpatialCrossAttentionOptions>()},
          {"TemporalSelfAttention", AttentionRegistry::entry<TemporalSelfAttentionOptions>()},
      });
  return registry;
}

}  // namespace olv2
