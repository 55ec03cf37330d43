// probe_model reproduces the original's numbers from the command line.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "lanesegnet_fixture.h"
#include "model_fixture.h"
#include "olv2/util/pth/pth_file.h"
#include "support/run_command.h"
#include "support/test_paths.h"
#include "toponet_fixture.h"

namespace olv2::test {
namespace {

// `prefix` names the fixture set ("baseline_" or "baseline_large_"), `config` the model.
std::string probe_arguments(const std::filesystem::path& dir, const std::filesystem::path& out,
                            const std::string& mode, const std::string& prefix = "baseline_",
                            const std::string& config = "baseline.yaml") {
  return (source_dir() / "configs" / "fixtures" / config).string() + " --state-dict " +
         (dir / (prefix + "state_dict.pt")).string() + " --input " +
         (dir / (prefix + "input.pt")).string() + " --out " + out.string() + " --mode " + mode;
}

// Every number of a nested JSON list, in order.
std::vector<double> probe_flat_values(const nlohmann::json& node) {
  std::vector<double> values;
  std::function<void(const nlohmann::json&)> collect = [&](const nlohmann::json& n) {
    if (n.is_array()) {
      for (const auto& child : n) collect(child);
    } else {
      values.push_back(n.get<double>());
    }
  };
  collect(node);
  return values;
}

void expect_probe_losses(const nlohmann::json& probe, const nlohmann::json& expected) {
  ASSERT_EQ(probe.at("losses").size(), expected.at("losses").size());
  for (const auto& [name, value] : expected.at("losses").items()) {
    const double reference = value.get<double>();
    test::expect_loss(probe.at("losses").at(name).get<double>(), reference, name);
  }
  test::expect_loss(probe.at("total_loss").get<double>(), expected.at("total_loss").get<double>(),
                    "total_loss");
}

void expect_probe_outputs(const nlohmann::json& probe, const TensorMap& expected) {
  ASSERT_EQ(probe.size(), expected.size());
  for (const auto& [key, reference] : expected) {
    const at::Tensor ours =
        torch::tensor(probe_flat_values(probe.at(key)), torch::kDouble).view(reference.sizes());
    expect_close(ours, reference, key);
  }
}

std::vector<int64_t> probe_indices(const at::Tensor& reference) {
  return std::vector<int64_t>(reference.data_ptr<int64_t>(),
                              reference.data_ptr<int64_t>() + reference.numel());
}

TEST(ProbeModel, TrainModeWritesTheOriginalLossesAndMatchings) {
  OLV2_REQUIRE_FIXTURE(json_path, "baseline_losses.json");
  const auto dir = json_path.parent_path();
  const auto out = scratch_dir("probe_model_train") / "probe.json";
  const CommandResult result = run_app("probe_model", probe_arguments(dir, out, "train"));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  expect_probe_losses(load_json(out), load_json(json_path));
  const nlohmann::json probe = load_json(out);

  const TensorMap intermediates = load_tensor_dict(dir / "baseline_intermediates.pt");
  for (const std::string head : {"lc_head", "te_head"}) {
    for (const std::string field : {"pos_inds", "pos_assigned_gt_inds"}) {
      const at::Tensor reference =
          at_key(intermediates, "train." + head + ".assign_result.0." + field + ".0");
      const std::vector<int64_t> ours = probe.at("assignments").at(head).at(field);
      EXPECT_EQ(ours, probe_indices(reference)) << head << "." << field;
    }
  }
}

// The freshly built model's {name: shape} equals the original's state dict, needing no weights.
TEST(ProbeModel, StateDictModeWritesTheOriginalNamesAndShapes) {
  for (const auto& [prefix, config] :
       {std::pair<std::string, std::string>{"baseline_", "baseline.yaml"},
        {"baseline_large_", "baseline_large_reduced.yaml"}}) {
    OLV2_REQUIRE_FIXTURE(state_path, prefix + "state_dict.pt");
    const auto out = scratch_dir("probe_state_dict") / (prefix + "shapes.json");
    const CommandResult result =
        run_app("probe_model", (source_dir() / "configs/fixtures" / config).string() +
                                   " --mode state-dict --out " + out.string());
    ASSERT_EQ(result.exit_status, 0) << result.output;
    const nlohmann::json shapes = load_json(out);
    const TensorMap original = load_tensor_dict(state_path);
    EXPECT_EQ(shapes.size(), original.size()) << config;
    for (const auto& [name, tensor] : original) {
      ASSERT_TRUE(shapes.contains(name)) << config << ": " << name;
      EXPECT_EQ(shapes.at(name).get<std::vector<int64_t>>(), tensor.sizes().vec()) << name;
    }
  }
  const CommandResult missing =
      run_app("probe_model", (source_dir() / "configs/fixtures/baseline.yaml").string() +
                                 " --mode train --out " +
                                 (scratch_dir("probe_state_dict") / "x.json").string());
  EXPECT_EQ(missing.exit_status, 2) << missing.output;
  EXPECT_NE(missing.output.find("--state-dict is required in train mode"), std::string::npos)
      << missing.output;
}

TEST(ProbeModel, TestModeWritesTheOriginalOutputs) {
  OLV2_REQUIRE_FIXTURE(outputs_path, "baseline_outputs.pt");
  const auto dir = outputs_path.parent_path();
  const auto out = scratch_dir("probe_model_test") / "probe.json";
  const CommandResult result = run_app("probe_model", probe_arguments(dir, out, "test"));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  expect_probe_outputs(load_json(out).at("outputs"), load_tensor_dict(outputs_path));
}

TEST(ProbeModel, LargeTrainModeWritesTheOriginalLossesAndEveryLayersMatching) {
  OLV2_REQUIRE_FIXTURE(json_path, "baseline_large_losses.json");
  const auto dir = json_path.parent_path();
  const auto out = scratch_dir("probe_large_train") / "probe.json";
  const CommandResult result =
      run_app("probe_model",
              probe_arguments(dir, out, "train", "baseline_large_", "baseline_large_reduced.yaml"));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  expect_probe_losses(load_json(out), load_json(json_path));
  const nlohmann::json assignments = load_json(out).at("assignments");
  const TensorMap intermediates = load_tensor_dict(dir / "baseline_large_intermediates.pt");
  for (const std::string head : {"pts_bbox_head", "bbox_head"}) {
    ASSERT_EQ(assignments.at(head).size(), 2u) << head << ": one entry per decoder layer";
    for (size_t layer = 0; layer < 2; ++layer) {
      for (const std::string field : {"pos_inds", "pos_assigned_gt_inds"}) {
        const std::string key =
            "train." + head + ".assign_result." + std::to_string(layer) + "." + field + ".0";
        const std::vector<int64_t> ours = assignments.at(head).at(layer).at(field);
        EXPECT_EQ(ours, probe_indices(at_key(intermediates, key))) << key;
      }
    }
  }
}

TEST(ProbeModel, LargeTestModeWritesTheOriginalOutputs) {
  OLV2_REQUIRE_FIXTURE(outputs_path, "baseline_large_outputs.pt");
  const auto dir = outputs_path.parent_path();
  const auto out = scratch_dir("probe_large_test") / "probe.json";
  const CommandResult result =
      run_app("probe_model",
              probe_arguments(dir, out, "test", "baseline_large_", "baseline_large_reduced.yaml"));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  expect_probe_outputs(load_json(out).at("outputs"), load_tensor_dict(outputs_path));
}

// Frame 0 of a fixture as its original forward_train receives it: `img` with a queue of one, the
// metas as tensors, the ground truth `gt_keys` of `extra` (the fixture's inputs.pt) under
// forward_train's names; `zero_ego_motion`: as its forward_test sees a first frame.
void write_probe_input(const std::filesystem::path& file, const std::filesystem::path& extra_file,
                       const std::vector<std::string>& gt_keys, bool zero_ego_motion) {
  const TensorMap frames = load_tensor_dict(source_dir() / "tests/data/gradients/two_frames.pt");
  const TensorMap extra = load_tensor_dict(extra_file);
  NamedTensors input;
  input.emplace_back("img", at_key(frames, "img").narrow(0, 0, 1).unsqueeze(1));
  for (const std::string key : {"lidar2img", "img_shape", "pad_shape", "scale_factor"}) {
    input.emplace_back(key, at_key(frames, key).narrow(0, 0, 1));
  }
  at::Tensor can_bus = at_key(frames, "can_bus").narrow(0, 0, 1).clone();
  if (zero_ego_motion) {
    can_bus.narrow(1, 0, 3).zero_();
    can_bus.narrow(1, 17, 1).zero_();
  }
  input.emplace_back("can_bus", can_bus);
  for (const std::string key : {"crop_shape", "lidar2global_rotation"}) {
    input.emplace_back(key, at_key(extra, key).narrow(0, 0, 1));
  }
  for (const std::string& key : gt_keys) input.emplace_back(key + ".0", at_key(extra, key + ".0"));
  write_pth(file, to_pth_value(input));
}

void write_toponet_probe_input(const std::filesystem::path& file, bool zero_ego_motion) {
  write_probe_input(file, toponet_data("inputs.pt"),
                    {"gt_lanes_3d", "gt_lane_labels_3d", "gt_lane_adj", "gt_lane_lcte_adj",
                     "gt_bboxes", "gt_labels"},
                    zero_ego_motion);
}

// probe_model drives TopoNet through the detector interface in every mode, from a forward_train
// input file, as the original computes it.
TEST(ProbeModel, ProbesTopoNetInEveryMode) {
  LOAD_TOPONET_SHARED_WEIGHTS(shared);
  const auto dir = scratch_dir("probe_toponet");
  write_pth(dir / "state_dict.pt", to_pth_value(module_state_dict(*toponet_fixture_model(shared))));
  write_toponet_probe_input(dir / "train.pt", /*zero_ego_motion=*/false);
  write_toponet_probe_input(dir / "test.pt", /*zero_ego_motion=*/true);
  const std::string config = (source_dir() / "configs/fixtures/toponet_reduced.yaml").string();
  const auto probe = [&](const std::string& mode, const std::string& input,
                         const std::string& extra = "") {
    return run_app("probe_model", config + " --state-dict " + (dir / "state_dict.pt").string() +
                                      " --input " + (dir / input).string() + " --out " +
                                      (dir / (mode + ".out")).string() + " --mode " + mode + extra);
  };

  const CommandResult train = probe("train", "train.pt");
  ASSERT_EQ(train.exit_status, 0) << train.output;
  const nlohmann::json trained = load_json(dir / "train.out");
  expect_probe_losses(trained, load_json(toponet_data("one_frame_losses.json")));
  const TensorMap recorded = load_tensor_dict(toponet_data("one_frame_outputs.pt"));
  for (const auto& [head, key] :
       {std::pair<std::string, std::string>{"bbox_head", "te"}, {"pts_bbox_head", "lane"}}) {
    const nlohmann::json& layers = trained.at("assignments").at(head);
    ASSERT_EQ(layers.size(), 6u) << head << ": one entry per decoder layer";
    for (size_t layer = 0; layer < layers.size(); ++layer) {
      for (const std::string field : {"pos_inds", "pos_assigned_gt_inds"}) {
        const std::string name = "assign." + key + "." + std::to_string(layer) + ".0." + field;
        const std::vector<int64_t> ours = layers.at(layer).at(field);
        EXPECT_EQ(ours, probe_indices(at_key(recorded, name).to(torch::kLong).contiguous()))
            << name;
      }
    }
  }

  const CommandResult test = probe("test", "test.pt");
  ASSERT_EQ(test.exit_status, 0) << test.output;
  const nlohmann::json outputs = load_json(dir / "test.out").at("outputs");
  const TensorMap expected = load_tensor_dict(toponet_data("test_outputs.pt"));
  for (const auto& [ours, theirs] :
       {std::pair<std::string, std::string>{"new_prev_bev", "test.bev"},
        {"pred_lc.lanes", "test.lane.lanes"},
        {"pred_lc.scores", "test.lane.scores"},
        {"pred_te.scores", "test.bbox.scores"},
        {"pred_topology_lclc", "test.lclc"},
        {"pred_topology_lcte", "test.lcte"}}) {
    const at::Tensor reference = at_key(expected, theirs);
    expect_close(
        torch::tensor(probe_flat_values(outputs.at(ours)), torch::kDouble).view(reference.sizes()),
        reference, ours);
  }
  const at::Tensor boxes = at_key(expected, "test.bbox.boxes");
  expect_close(torch::tensor(probe_flat_values(outputs.at("pred_te.bboxes_labels")), torch::kDouble)
                   .view({boxes.size(0), 5})
                   .narrow(1, 0, 4),
               boxes, "pred_te.bboxes_labels");

  const CommandResult grads = probe(
      "grads", "train.pt", " --compare-with " + toponet_data("one_frame_gradients.pt").string());
  EXPECT_EQ(grads.exit_status, 0) << grads.output;
  EXPECT_NE(grads.output.find(" gradients beyond 1e-05 relative"), std::string::npos)
      << grads.output;

  const CommandResult shapes =
      run_app("probe_model", config + " --mode state-dict --out " + (dir / "shapes.json").string());
  ASSERT_EQ(shapes.exit_status, 0) << shapes.output;
  EXPECT_EQ(load_json(dir / "shapes.json").size(), 905u);
}

// probe_model drives LaneSegNet through the detector interface in every mode, from an input file
// with its original forward_train's names (the line types and instance masks included).
TEST(ProbeModel, ProbesLaneSegNetInEveryMode) {
  LOAD_TOPONET_SHARED_WEIGHTS(shared);
  const auto dir = scratch_dir("probe_lanesegnet");
  write_pth(dir / "state_dict.pt",
            to_pth_value(module_state_dict(*lanesegnet_fixture_model(shared))));
  const std::vector<std::string> gt_keys = {"gt_lanes_3d",        "gt_lane_labels_3d",
                                            "gt_lane_adj",        "gt_lane_left_type",
                                            "gt_lane_right_type", "gt_instance_masks"};
  write_probe_input(dir / "train.pt", lanesegnet_data("inputs.pt"), gt_keys, false);
  write_probe_input(dir / "test.pt", lanesegnet_data("inputs.pt"), gt_keys, true);
  const std::string config = (source_dir() / "configs/fixtures/lanesegnet_reduced.yaml").string();
  const auto probe = [&](const std::string& mode, const std::string& input,
                         const std::string& extra = "") {
    return run_app("probe_model", config + " --state-dict " + (dir / "state_dict.pt").string() +
                                      " --input " + (dir / input).string() + " --out " +
                                      (dir / (mode + ".out")).string() + " --mode " + mode + extra);
  };

  const CommandResult train = probe("train", "train.pt");
  ASSERT_EQ(train.exit_status, 0) << train.output;
  const nlohmann::json trained = load_json(dir / "train.out");
  expect_probe_losses(trained, load_json(lanesegnet_data("one_frame_losses.json")));
  const TensorMap recorded = load_tensor_dict(lanesegnet_data("one_frame_outputs.pt"));
  const nlohmann::json& layers = trained.at("assignments").at("pts_bbox_head");
  ASSERT_EQ(layers.size(), 6u);
  EXPECT_FALSE(trained.at("assignments").contains("bbox_head"));
  for (size_t layer = 0; layer < layers.size(); ++layer) {
    for (const std::string field : {"pos_inds", "pos_assigned_gt_inds"}) {
      const std::string name = "assign.lane." + std::to_string(layer) + ".0." + field;
      const std::vector<int64_t> ours = layers.at(layer).at(field);
      EXPECT_EQ(ours, probe_indices(at_key(recorded, name).to(torch::kLong).contiguous())) << name;
    }
  }

  const CommandResult test = probe("test", "test.pt");
  ASSERT_EQ(test.exit_status, 0) << test.output;
  const nlohmann::json outputs = load_json(dir / "test.out").at("outputs");
  const TensorMap expected = load_tensor_dict(lanesegnet_data("test_outputs.pt"));
  for (const auto& [ours, theirs] :
       {std::pair<std::string, std::string>{"pred_lc.lanes", "test.lane.lanes"},
        {"pred_topology_lclc", "test.lsls"}}) {
    const at::Tensor reference = at_key(expected, theirs);
    expect_close(
        torch::tensor(probe_flat_values(outputs.at(ours)), torch::kDouble).view(reference.sizes()),
        reference, ours);
  }
  // Per query the two classes' probabilities; the original decodes their maximum.
  const at::Tensor scores = at_key(expected, "test.lane.scores");
  expect_close(
      std::get<0>(torch::tensor(probe_flat_values(outputs.at("pred_lc.scores")), torch::kDouble)
                      .view({scores.size(0), 2})
                      .max(1)),
      scores, "pred_lc.scores");
  EXPECT_FALSE(outputs.contains("pred_te.scores"));

  const CommandResult grads = probe(
      "grads", "train.pt", " --compare-with " + lanesegnet_data("one_frame_gradients.pt").string());
  EXPECT_EQ(grads.exit_status, 0) << grads.output;

  const CommandResult shapes =
      run_app("probe_model", config + " --mode state-dict --out " + (dir / "shapes.json").string());
  ASSERT_EQ(shapes.exit_status, 0) << shapes.output;
  EXPECT_EQ(load_json(dir / "shapes.json").size(), 639u);
}

TEST(ProbeModel, BadInputsExitWithStatusTwoAndOneLine) {
  const auto dir = scratch_dir("probe_model_bad");
  const CommandResult result =
      run_app("probe_model", (source_dir() / "configs" / "fixtures" / "baseline.yaml").string() +
                                 " --state-dict " + (dir / "missing.pt").string() +
                                 " --input x.pt --out " + (dir / "o.json").string());
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_EQ(result.output.rfind("probe_model: error: ", 0), 0u) << result.output;
}

}  // namespace
}  // namespace olv2::test
