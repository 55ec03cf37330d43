#include "olv2/models/attention_registry.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "olv2/config/config_loader.h"
#include "olv2/models/bev/bevformer_layer.h"
#include "olv2/models/bev/temporal_self_attention.h"
#include "olv2/models/layers/multi_scale_deformable_attention.h"
#include "olv2/models/layers/transformer_layer_config.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

const char* const kLayer = R"(
type: BEVFormerLayer
attn_cfgs:
- {type: TemporalSelfAttention, embed_dims: 64, num_levels: 1}
- {type: MultiheadAttention, embed_dims: 64, num_heads: 4}
operation_order: [self_attn, norm, cross_attn, norm, ffn, norm]
)";

// Every attention is read by the one registry; a layer takes the attention it runs at each
// entry, and names the entry when the config gives another.
TEST(AttentionRegistry, ALayerRefusesAnAttentionItDoesNotRun) {
  const ConfigNode layer = parse_yaml(kLayer, "layer.yaml");
  const auto self_attention =
      layer_attention<TemporalSelfAttentionOptions>(layer, 0, "TemporalSelfAttention");
  EXPECT_EQ(self_attention.embed_dims, 64);
  EXPECT_EQ(self_attention.num_levels, 1);
  try {
    BevFormerLayerOptions::from_config(layer);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("layer.yaml:5:"), std::string::npos) << message;
    EXPECT_NE(message.find("this layer runs SpatialCrossAttention here, not `MultiheadAttention`"),
              std::string::npos)
        << message;
  }
  EXPECT_THROW(layer_attention<TemporalSelfAttentionOptions>(layer, 2, "TemporalSelfAttention"),
               Error);
}

// mmcv's deformable attention and OpenLane-V2's copy read into one options type with mmcv's
// defaults; an unknown type is a schema problem naming the registered ones.
TEST(AttentionRegistry, ReadsBothDeformableNamesAndNamesTheKnownTypes) {
  const ConfigNode entries = parse_yaml(
      "lane: {type: CustomMSDeformableAttention, embed_dims: 64, num_levels: 1}\n"
      "flash: {type: FlashAttention}\n",
      "attn.yaml");
  const auto lane = read_attention<MultiScaleDeformableAttentionOptions>(entries.at("lane"),
                                                                         "a deformable attention");
  EXPECT_EQ(lane.num_levels, 1);
  EXPECT_EQ(lane.num_heads, 8);
  EXPECT_EQ(lane.num_points, 4);
  const std::vector<std::string> problems = attention_list_schema().problems(entries.at("flash"));
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems[0].find("attn.yaml:2:"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("MSDeformableAttention3D"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("TemporalSelfAttention"), std::string::npos) << problems[0];
}

// TopoNet's copy of the temporal self-attention is registered in the scopes `toponet` and
// `lanesegnet` (which copied it): the name their configs share with the plug-in's means that
// copy there and the plug-in's elsewhere, and the scoped name means it anywhere; a scope without
// its own copy reads the plug-in's.
TEST(AttentionRegistry, AScopeChoosesItsOwnCopyOfAnAttention) {
  const ConfigNode entries = parse_yaml(
      "shared: {type: TemporalSelfAttention, embed_dims: 64, num_levels: 1}\n"
      "scoped: {type: toponet.TemporalSelfAttention, embed_dims: 64, num_levels: 1}\n",
      "attn.yaml");
  const auto read = [&](const std::string& entry, const std::string& scope) {
    return read_attention<TemporalSelfAttentionOptions>(entries.at(entry), "TSA", scope).code;
  };
  EXPECT_EQ(read("shared", ""), TemporalSelfAttentionCode::kOpenLaneV2);
  EXPECT_EQ(read("shared", "toponet"), TemporalSelfAttentionCode::kTopoNet);
  EXPECT_EQ(read("shared", "lanesegnet"), TemporalSelfAttentionCode::kTopoNet);
  EXPECT_EQ(read("shared", "maptr"), TemporalSelfAttentionCode::kOpenLaneV2);
  EXPECT_EQ(read("scoped", ""), TemporalSelfAttentionCode::kTopoNet);
  EXPECT_TRUE(attention_list_schema().problems(entries.at("scoped")).empty());

  const ConfigNode layer = parse_yaml(kLayer, "layer.yaml");
  EXPECT_EQ(layer_attention<TemporalSelfAttentionOptions>(layer, 0, "TSA", "toponet").code,
            TemporalSelfAttentionCode::kTopoNet);
  EXPECT_EQ(layer_attention<TemporalSelfAttentionOptions>(layer, 0, "TSA").code,
            TemporalSelfAttentionCode::kOpenLaneV2);
}

}  // namespace
}  // namespace olv2
