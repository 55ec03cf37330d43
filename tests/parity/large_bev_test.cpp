// The BaselineLarge BEV constructor against the original: from the recorded FPN features of
// the train pass (dropout 0) and of the test pass to the recorded BEV features.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>

#include "heads_fixture.h"
#include "model_fixture.h"
#include "olv2/models/bev/bevformer_constructer.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

using test::at_key;

// `model_cfg.bev_constructor` of the fixture, mapped by hand.
BevFormerConstructerOptions bev_fixture_options(const nlohmann::json& cfg) {
  const nlohmann::json& encoder = cfg.at("encoder");
  const nlohmann::json& layer = encoder.at("transformerlayers");
  const nlohmann::json& tsa = layer.at("attn_cfgs").at(0);
  const nlohmann::json& sca = layer.at("attn_cfgs").at(1);
  const nlohmann::json& msda = sca.at("deformable_attention");
  const nlohmann::json& ffn = layer.at("ffn_cfgs");
  const nlohmann::json& pos = cfg.at("positional_encoding");

  BevFormerConstructerOptions o;
  o.embed_dims = cfg.at("embed_dims");
  o.num_feature_levels = cfg.at("num_feature_levels");
  o.num_cams = cfg.at("num_cams");
  o.bev_h = cfg.at("bev_h");
  o.bev_w = cfg.at("bev_w");
  o.use_can_bus = cfg.at("use_can_bus");
  o.encoder.num_layers = encoder.at("num_layers");
  o.encoder.num_points_in_pillar = encoder.at("num_points_in_pillar");
  const std::vector<double> range = encoder.at("pc_range");
  std::copy(range.begin(), range.end(), o.encoder.pc_range.begin());
  o.encoder.layer.self_attention.embed_dims = tsa.at("embed_dims");
  o.encoder.layer.self_attention.num_levels = tsa.at("num_levels");
  o.encoder.layer.cross_attention.embed_dims = sca.at("embed_dims");
  o.encoder.layer.cross_attention.num_cams = sca.at("num_cams");
  o.encoder.layer.cross_attention.deformable_attention.embed_dims = msda.at("embed_dims");
  o.encoder.layer.cross_attention.deformable_attention.num_points = msda.at("num_points");
  o.encoder.layer.cross_attention.deformable_attention.num_levels = msda.at("num_levels");
  o.encoder.layer.ffn.embed_dims = ffn.at("embed_dims");
  o.encoder.layer.ffn.feedforward_channels = ffn.at("feedforward_channels");
  o.encoder.layer.ffn.num_fcs = ffn.at("num_fcs");
  o.encoder.layer.ffn.ffn_drop = ffn.at("ffn_drop");
  o.positional_encoding.num_feats = pos.at("num_feats");
  o.positional_encoding.row_num_embed = pos.at("row_num_embed");
  o.positional_encoding.col_num_embed = pos.at("col_num_embed");
  return o;
}

struct BevParityFixture {
  test::TensorMap state, input, inter, outputs;
  BevFormerConstructer bev{nullptr};

  void load(const std::filesystem::path& dir) {
    state = test::load_tensor_dict(dir / "baseline_large_state_dict.pt");
    input = test::load_tensor_dict(dir / "baseline_large_input.pt");
    inter = test::load_tensor_dict(dir / "baseline_large_intermediates.pt");
    outputs = test::load_tensor_dict(dir / "baseline_large_outputs.pt");
    const nlohmann::json losses = test::load_json(dir / "baseline_large_losses.json");
    bev = BevFormerConstructer(bev_fixture_options(losses.at("model_cfg").at("bev_constructor")));
    test::load_module_state(*bev, state, "bev_constructor.");
  }

  // The recorded FPN outputs of `pass`, [7, C, h, w] each, as the batch of one [1, 7, C, h, w].
  std::vector<at::Tensor> neck_features(const std::string& pass) const {
    std::vector<at::Tensor> feats;
    for (int level = 0; level < 4; ++level) {
      feats.push_back(at_key(inter, pass + ".img_neck." + std::to_string(level)).unsqueeze(0));
    }
    return feats;
  }

  at::Tensor forward(const std::string& pass) {
    const at::Tensor img_shape = at_key(input, "img_shape");  // [1, 7, 3] (h, w, 3)
    const std::pair<int64_t, int64_t> img_hw{img_shape[0][0][0].item<int64_t>(),
                                             img_shape[0][0][1].item<int64_t>()};
    return bev->forward(neck_features(pass), at_key(input, "lidar2img"), img_hw,
                        at_key(input, "can_bus"));
  }
};

#define LOAD_BEV_FIXTURE(f)                                      \
  OLV2_REQUIRE_FIXTURE(dir_, "baseline_large_intermediates.pt"); \
  BevParityFixture f;                                            \
  ASSERT_NO_FATAL_FAILURE(f.load(dir_.parent_path()))

TEST(LargeBevParity, TestPassMatchesRecordedBevFeatures) {
  LOAD_BEV_FIXTURE(f);
  f.bev->eval();
  torch::NoGradGuard no_grad;
  const at::Tensor bev = f.forward("test");
  test::expect_close(bev, at_key(f.inter, "test.bev_constructor"), "test.bev_constructor");
  test::expect_close(bev, at_key(f.outputs, "new_prev_bev"), "new_prev_bev");
}

TEST(LargeBevParity, TrainPassWithoutDropoutMatchesRecordedBevFeatures) {
  LOAD_BEV_FIXTURE(f);
  f.bev->train();
  f.bev->set_dropout(0.0);
  const at::Tensor bev = f.forward("train");
  test::expect_close(bev, at_key(f.inter, "train.bev_constructor"), "train.bev_constructor");
}

TEST(LargeBevParity, ParametersFollowTheOriginalStateDictOrder) {
  LOAD_BEV_FIXTURE(f);
  const std::string prefix = "bev_constructor.";
  std::vector<std::string> expected;
  for (const auto& [key, value] :
       test::load_named_tensors(dir_.parent_path() / "baseline_large_state_dict.pt")) {
    if (key.rfind(prefix, 0) == 0) expected.push_back(key.substr(prefix.size()));
  }
  std::vector<std::string> actual;
  for (const auto& item : f.bev->named_parameters()) actual.push_back(item.key());
  EXPECT_EQ(actual, expected);
}

}  // namespace
}  // namespace olv2
