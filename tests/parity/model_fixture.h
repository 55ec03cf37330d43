#pragma once
// Shared by the model parity tests: the fixture model built through the real config builder
// from the fixture's own `model_cfg`, its weights, and the fixture input as a Batch.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "heads_fixture.h"
#include "olv2/config/config_loader.h"
#include "olv2/data/batch.h"
#include "olv2/models/build.h"
#include "olv2/models/detectors/baseline.h"
#include "olv2/util/state_dict.h"

namespace olv2::test {

// A fixture `.pt` dict of tensors in file order.
inline NamedTensors load_named_tensors(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  NamedTensors out;
  for (const auto& entry : torch::pickle_load(bytes).toGenericDict()) {
    out.emplace_back(entry.key().toStringRef(), entry.value().toTensor());
  }
  return out;
}

// The `model` section the fixture was produced with (JSON is YAML), through the builder.
inline BaselineOptions fixture_model_options(const nlohmann::json& losses_json) {
  const ConfigNode model = parse_yaml(losses_json.at("model_cfg").dump(), "model_cfg");
  return BaselineOptions::from_config(model);
}

inline std::shared_ptr<BaselineImpl> fixture_model(const nlohmann::json& losses_json,
                                                   const NamedTensors& state) {
  auto model = std::make_shared<BaselineImpl>(fixture_model_options(losses_json));
  load_state_dict(*model, state);
  return model;
}

// The fixture input (batch of one) as the data layer hands it to the model.
inline Batch fixture_batch(const TensorMap& input, bool with_gt) {
  Batch batch;
  batch.images = at_key(input, "img");
  batch.lidar2img = at_key(input, "lidar2img");
  batch.can_bus = at_key(input, "can_bus");
  const at::Tensor img_shape = at_key(input, "img_shape");
  const at::Tensor pad_shape = at_key(input, "pad_shape");
  const at::Tensor scale = at_key(input, "scale_factor");
  for (int64_t b = 0; b < batch.images.size(0); ++b) {
    ImageMeta meta;
    meta.scene_token = "fixture";
    meta.sample_idx = std::to_string(b);
    for (int64_t cam = 0; cam < img_shape.size(1); ++cam) {
      std::array<int64_t, 3> shape{}, pad{};
      for (int64_t k = 0; k < 3; ++k) {
        shape[k] = img_shape[b][cam][k].item<int64_t>();
        pad[k] = pad_shape[b][cam][k].item<int64_t>();
      }
      meta.img_shape.push_back(shape);
      meta.pad_shape.push_back(pad);
    }
    for (int64_t k = 0; k < 4; ++k) meta.scale_factor[k] = scale[b][k].item<float>();
    batch.metas.push_back(meta);
    batch.indices.push_back(b);
  }
  if (with_gt) {
    batch.gt_lc = {at_key(input, "gt_lc")};
    batch.gt_lc_labels = {at_key(input, "gt_lc_labels")};
    batch.gt_te = {at_key(input, "gt_te")};
    batch.gt_te_labels = {at_key(input, "gt_te_labels")};
    batch.gt_topology_lclc = {at_key(input, "gt_topology_lclc")};
    batch.gt_topology_lcte = {at_key(input, "gt_topology_lcte")};
  }
  return batch;
}

// The losses in the order, with the names and within the tolerance of the fixture's
// `<prefix>losses.json` (read in file order: the original's order is part of what is checked),
// and their total.
inline void expect_losses_as_recorded(const LossMap& losses,
                                      const std::filesystem::path& losses_json) {
  std::ifstream file(losses_json);
  const nlohmann::ordered_json recorded = nlohmann::ordered_json::parse(file);
  const nlohmann::ordered_json& expected = recorded.at("losses");
  ASSERT_EQ(losses.size(), expected.size());
  size_t i = 0;
  for (const auto& [name, value] : expected.items()) {
    EXPECT_EQ(losses[i].first, name) << "loss " << i << " (names and order)";
    expect_loss(losses[i].second, value.get<double>(), name);
    ++i;
  }
  expect_loss(total_loss(losses), recorded.at("total_loss").get<double>(), "total_loss");
}

// One matching against `<prefix>{pos_inds, neg_inds, pos_assigned_gt_inds}.0`, exactly.
inline void expect_assignment_as_recorded(const AssignResult& result,
                                          const TensorMap& intermediates,
                                          const std::string& prefix) {
  EXPECT_TRUE(torch::equal(result.pos_inds, at_key(intermediates, prefix + "pos_inds.0")))
      << prefix;
  EXPECT_TRUE(torch::equal(result.neg_inds, at_key(intermediates, prefix + "neg_inds.0")))
      << prefix;
  EXPECT_TRUE(torch::equal(result.pos_assigned_gt_inds,
                           at_key(intermediates, prefix + "pos_assigned_gt_inds.0")))
      << prefix;
}

// Every decoder layer's matching of `head` against `train.<head>.assign_result.<layer>.`: as many
// layers as the fixture recorded, each exactly (the first sample's).
inline void expect_assignments_as_recorded(const std::vector<std::vector<AssignResult>>& layers,
                                           const TensorMap& intermediates,
                                           const std::string& head) {
  const auto prefix = [&](size_t layer) {
    return "train." + head + ".assign_result." + std::to_string(layer) + ".";
  };
  size_t recorded = 0;
  while (intermediates.count(prefix(recorded) + "pos_inds.0") > 0) ++recorded;
  ASSERT_GT(recorded, 0u) << head << ": no matching recorded";
  ASSERT_EQ(layers.size(), recorded) << head << ": decoder layers matched";
  for (size_t layer = 0; layer < recorded; ++layer) {
    ASSERT_FALSE(layers[layer].empty()) << head << " layer " << layer;
    expect_assignment_as_recorded(layers[layer][0], intermediates, prefix(layer));
  }
}

// Gradient sums against `grad_abs_sum_all` (rtol 1e-3 where the sum exceeds 1e-3, README: the
// tiny ones are thread noise) and the parameters without a gradient against
// `params_without_grad`. Returns how many sums were compared.
inline int expect_gradients_as_recorded(torch::nn::Module& model, const nlohmann::json& recorded) {
  std::map<std::string, at::Tensor> grads;
  for (const auto& item : model.named_parameters()) grads[item.key()] = item.value().grad();
  int checked = 0;
  for (const auto& [name, value] : recorded.at("grad_abs_sum_all").items()) {
    EXPECT_TRUE(grads.count(name) && grads[name].defined()) << name << " has no gradient";
    if (!grads.count(name) || !grads[name].defined()) continue;
    const double reference = value.get<double>();
    if (reference > 1e-3) {
      EXPECT_NEAR(grads[name].abs().sum().item<double>(), reference, 1e-3 * reference) << name;
      ++checked;
    }
  }
  std::set<std::string> without_grad;
  for (const auto& [name, grad] : grads) {
    if (!grad.defined()) without_grad.insert(name);
  }
  EXPECT_EQ(without_grad, recorded.at("params_without_grad").get<std::set<std::string>>());
  return checked;
}

// The model fixture files; the test is skipped (or fails under CI) when they are absent.
struct ModelFixture {
  std::filesystem::path dir;
  nlohmann::json losses;
  NamedTensors state;
  TensorMap input;
  TensorMap intermediates;
  TensorMap outputs;
};

// The set `<prefix>*` ("baseline_" or "baseline_large_") beside `losses_json`.
inline ModelFixture read_model_fixture(const std::filesystem::path& losses_json,
                                       const std::string& prefix = "baseline_") {
  ModelFixture f;
  f.dir = losses_json.parent_path();
  f.losses = load_json(losses_json);
  f.state = load_named_tensors(f.dir / (prefix + "state_dict.pt"));
  f.input = load_tensor_dict(f.dir / (prefix + "input.pt"));
  f.intermediates = load_tensor_dict(f.dir / (prefix + "intermediates.pt"));
  f.outputs = load_tensor_dict(f.dir / (prefix + "outputs.pt"));
  return f;
}

// Every matching of `head` recorded as `assign.<head>.<layer>.<sample>.{pos_inds,
// pos_assigned_gt_inds}` (one per decoder layer and frame) against ours, and as many of ours as
// were recorded.
inline void expect_recorded_assignments(const std::vector<std::vector<AssignResult>>& layers,
                                        const TensorMap& recorded, const std::string& head) {
  const std::string prefix = "assign." + head + ".";
  const std::string suffix = ".pos_inds";
  size_t recorded_matchings = 0;
  for (const auto& [key, value] : recorded) {
    if (key.rfind(prefix, 0) == 0 && key.size() > suffix.size() &&
        key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0) {
      ++recorded_matchings;
    }
  }
  size_t ours = 0;
  for (const auto& layer : layers) ours += layer.size();
  EXPECT_EQ(ours, recorded_matchings) << head << ": matchings (decoder layers x frames)";
  EXPECT_GT(layers.size(), 1u) << head;
  for (size_t l = 0; l < layers.size(); ++l) {
    for (size_t b = 0; b < layers[l].size(); ++b) {
      const std::string key = "assign." + head + "." + std::to_string(l) + "." + std::to_string(b);
      EXPECT_TRUE(torch::equal(layers[l][b].pos_inds, at_key(recorded, key + ".pos_inds"))) << key;
      EXPECT_TRUE(torch::equal(layers[l][b].pos_assigned_gt_inds,
                               at_key(recorded, key + ".pos_assigned_gt_inds")))
          << key;
    }
  }
}

}  // namespace olv2::test
