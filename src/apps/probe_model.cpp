// probe_model: runs frames (a `dict[str, Tensor]`, as the original model's forward_train receives
// them: data/fixture_sample.h) as given through the detector of a config with the weights of a
// state dict, through the detector interface, and writes the losses and matchings (train mode)
// or the decoded head outputs (test mode) as JSON, or one training step's gradients (grads
// mode) as a `.pt` record, optionally compared with a reference record; or writes the freshly
// built model's state-dict names and shapes (state-dict mode).
#include <torch/torch.h>

#include <CLI/CLI.hpp>
#include <array>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "olv2/config/config_loader.h"
#include "olv2/data/batch.h"
#include "olv2/data/fixture_sample.h"
#include "olv2/engine/distributed/all_reduce_gradient_sync.h"
#include "olv2/engine/distributed/launch_environment.h"
#include "olv2/engine/distributed/process_group.h"
#include "olv2/models/build.h"
#include "olv2/models/detectors/detector.h"
#include "olv2/models/gradient_record.h"
#include "olv2/util/app_main.h"
#include "olv2/util/collective.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"
#include "olv2/util/pth/pth_file.h"
#include "olv2/util/state_dict.h"

namespace olv2::programs::probe_model {

namespace {

namespace fs = std::filesystem;
using olv2::input_error;

struct Arguments {
  fs::path config;
  fs::path state_dict;
  fs::path input;
  fs::path out;
  std::string mode = "train";
  bool dropout = false;
  uint64_t seed = 0;
  std::string launcher = "none";
  fs::path compare_with;
  double tolerance = 1e-5;
};

nlohmann::ordered_json nested(const at::Tensor& tensor) {
  const at::Tensor t = tensor.detach().to(torch::kCPU, torch::kDouble);
  if (t.dim() == 0) return t.item<double>();
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (int64_t i = 0; i < t.size(0); ++i) list.push_back(nested(t[i]));
  return list;
}

nlohmann::ordered_json indices(const at::Tensor& tensor) {
  const at::Tensor t = tensor.to(torch::kCPU, torch::kLong).contiguous();
  return std::vector<int64_t>(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel());
}

nlohmann::ordered_json losses_json(const olv2::LossMap& losses) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [name, value] : losses) out[name] = value.item<double>();
  return out;
}

nlohmann::ordered_json assignment(const olv2::AssignResult& result) {
  nlohmann::ordered_json matched = {{"pos_inds", indices(result.pos_inds)},
                                    {"pos_assigned_gt_inds", indices(result.pos_assigned_gt_inds)}};
  // MapTR's matchings: the order of each ground truth it was matched in (`assigned_shift`).
  if (result.pos_assigned_orders.defined()) {
    matched["assigned_shift"] = indices(result.pos_assigned_orders);
  }
  return matched;
}

// How the original's probe of each detector names what it records.
struct ProbeFormat {
  std::string lane_head;  // the assignments' keys
  std::string te_head;
  bool every_layer;  // every decoder layer's matching, or the last one's
  bool rescale;      // boxes in raw front-image pixels, or in the resized front image
  std::array<std::string, 4> outputs;  // lanes, lane scores, boxes with labels, box scores
  bool with_bev;                       // the BEV the next frame would receive, as `new_prev_bev`
};

// By `model.type`. Baseline: forward_test's outputs (rescaled) and the one decoder layer's
// matchings. BaselineLarge: simple_test's outputs (rescale=False) and every decoder layer's
// matchings. TopoNet, LaneSegNet and its Map Element Bucket: simple_test's (rescale=False), every
// layer's matchings (the bucket's areas too, as `area_head`, and its decoded areas).
const std::map<std::string, ProbeFormat>& probe_formats() {
  static const std::map<std::string, ProbeFormat> formats = {
      {"Baseline",
       {"lc_head",
        "te_head",
        false,
        true,
        {"pred_lc.lanes", "pred_lc.scores", "pred_te.bboxes_labels", "pred_te.scores"},
        false}},
      {"BaselineLarge",
       {"pts_bbox_head",
        "bbox_head",
        true,
        false,
        {"pred_lc.0", "pred_lc.1", "pred_te.0", "pred_te.1"},
        true}},
      {"TopoNet",
       {"pts_bbox_head",
        "bbox_head",
        true,
        false,
        {"pred_lc.lanes", "pred_lc.scores", "pred_te.bboxes_labels", "pred_te.scores"},
        true}},
      // No traffic elements: their keys are left out.
      {"LaneSegNet",
       {"pts_bbox_head",
        "bbox_head",
        true,
        false,
        {"pred_lc.lanes", "pred_lc.scores", "pred_te.bboxes_labels", "pred_te.scores"},
        true}},
      {"LaneSegNetMapElementBucket",
       {"pts_bbox_head",
        "bbox_head",
        true,
        false,
        {"pred_lc.lanes", "pred_lc.scores", "pred_te.bboxes_labels", "pred_te.scores"},
        true}},
  };
  return formats;
}

nlohmann::ordered_json assignments(const std::vector<std::vector<olv2::AssignResult>>& layers,
                                   bool every_layer) {
  if (!every_layer) return assignment(layers.back().at(0));
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& samples : layers) list.push_back(assignment(samples.at(0)));
  return list;
}

nlohmann::ordered_json probe_detector(olv2::DetectorImpl& model, const olv2::Batch& batch,
                                      bool train, const ProbeFormat& format) {
  nlohmann::ordered_json out;
  if (train) {
    const olv2::DetectorLosses result = model.losses_of(*model.forward_outputs(batch), batch);
    out["losses"] = losses_json(result.losses);
    out["total_loss"] = olv2::total_loss(result.losses).item<double>();
    out["assignments"] = {{format.lane_head, assignments(result.lane_assign, format.every_layer)}};
    if (!result.traffic_element_assign.empty()) {
      out["assignments"][format.te_head] =
          assignments(result.traffic_element_assign, format.every_layer);
    }
    if (!result.area_assign.empty()) {
      out["assignments"]["area_head"] = assignments(result.area_assign, format.every_layer);
    }
  } else {
    const torch::NoGradGuard no_grad;
    const std::shared_ptr<olv2::ForwardOutputs> forward = model.forward_outputs(batch);
    const olv2::FrameTestOutputs r = model.decode_outputs(*forward, batch, format.rescale).at(0);
    const std::array<const at::Tensor*, 4> decoded = {&r.lc.objects, &r.lc.scores, &r.te.objects,
                                                      &r.te.scores};
    out["outputs"] = nlohmann::ordered_json::object();
    for (size_t i = 0; i < decoded.size(); ++i) {
      if (decoded[i]->defined()) out["outputs"][format.outputs[i]] = nested(*decoded[i]);
    }
    // The original's flat [B, bev_h * bev_w, C].
    if (format.with_bev) out["outputs"]["new_prev_bev"] = nested(forward->next_prev_bev());
    if (r.lclc.defined()) out["outputs"]["pred_topology_lclc"] = nested(r.lclc);
    if (r.lcte.defined()) out["outputs"]["pred_topology_lcte"] = nested(r.lcte);
    if (r.areas.objects.defined()) {
      out["outputs"]["pred_area.points"] = nested(r.areas.objects);
      out["outputs"]["pred_area.scores"] = nested(r.areas.scores);
    }
  }
  return out;
}

// The config's `model` section, without its pretrained backbone weights.
olv2::ConfigNode model_section(const Arguments& args) {
  olv2::ConfigNode config = olv2::load_config_file(args.config);
  const olv2::ConfigNode* model = config.find("model");
  if (model == nullptr) throw input_error(args.config.string() + ": no `model` section");
  olv2::ConfigNode section = *model;
  if (olv2::ConfigNode* backbone = section.find("img_backbone")) backbone->erase("init_cfg");
  return section;
}

std::shared_ptr<olv2::DetectorImpl> built_model(const Arguments& args) {
  return olv2::build_detector(model_section(args));
}

std::shared_ptr<olv2::DetectorImpl> fixture_model(const Arguments& args) {
  const std::shared_ptr<olv2::DetectorImpl> model = built_model(args);
  olv2::load_state_dict(*model, olv2::tensors_of(olv2::read_pth(args.state_dict)));
  return model;
}

// Every parameter and buffer name with its shape, in state-dict order.
nlohmann::ordered_json state_dict_shapes(const Arguments& args) {
  nlohmann::ordered_json shapes = nlohmann::ordered_json::object();
  for (const auto& [name, tensor] : olv2::module_state_dict(*built_model(args))) {
    shapes[name] = tensor.sizes().vec();
  }
  return shapes;
}

nlohmann::ordered_json probe(const Arguments& args) {
  const std::shared_ptr<olv2::DetectorImpl> model = fixture_model(args);
  const bool train = args.mode == "train";
  const olv2::Batch batch = olv2::read_fixture_batch(args.input, train);
  torch::manual_seed(args.seed);
  if (train) {
    model->train();
    if (!args.dropout) model->set_dropout(0.0);
  } else {
    model->eval();
  }
  const std::string type = model_section(args).at("type").as_string();
  const auto format = probe_formats().find(type);
  if (format == probe_formats().end()) {
    throw input_error(args.config.string() + ": probe_model has no record format for `" + type +
                      "` (Baseline, BaselineLarge, TopoNet, LaneSegNet, "
                      "LaneSegNetMapElementBucket)");
  }
  return probe_detector(*model, batch, train, format->second);
}

// One training step without the optimizer, as train_ds's first step computes it: the loss
// terms summed, backward, and with several ranks (one frame each) the gradients averaged by
// the engine's all-reduce. Rank 0 writes the record and compares it; returns the exit status.
int probe_gradients(const Arguments& args) {
  const olv2::LaunchEnvironment launch = olv2::launch_environment(args.launcher, 0);
  std::shared_ptr<olv2::Collective> collective;
  if (launch.distributed()) {
    collective = std::make_shared<olv2::ProcessGroupCollective>(launch, olv2::DistributedOptions{},
                                                                c10::Device(c10::kCPU));
    olv2::install_process_collective(collective);
  }
  const std::shared_ptr<olv2::DetectorImpl> model = fixture_model(args);
  std::vector<int64_t> frames;
  if (launch.distributed()) frames.push_back(launch.rank);
  const olv2::Batch batch = olv2::read_fixture_batch(args.input, /*with_gt=*/true, frames);
  torch::manual_seed(args.seed);
  model->train();
  if (!args.dropout) model->set_dropout(0.0);
  std::unique_ptr<olv2::AllReduceGradientSync> sync;
  if (collective) {
    std::vector<at::Tensor> params;
    for (const at::Tensor& param : model->parameters()) {
      if (param.requires_grad()) params.push_back(param);
    }
    const olv2::DistributedOptions options;
    sync = std::make_unique<olv2::AllReduceGradientSync>(*collective, params, options.bucket_cap_mb,
                                                         options.overlap_comm);
  }
  // The frames as given, as in train mode.
  const at::Tensor loss =
      olv2::total_loss(model->losses_of(*model->forward_outputs(batch), batch).losses);
  if (sync) sync->before_backward(loss, /*last=*/true);
  loss.backward();
  if (sync) sync->finish(model->parameters());
  int status = 0;
  if (launch.rank == 0) {
    const olv2::NamedTensors record = olv2::gradient_record(*model);
    olv2::write_pth(args.out, olv2::to_pth_value(record));
    if (!args.compare_with.empty()) {
      const auto differences = olv2::compare_gradient_records(
          record, olv2::tensors_of(olv2::read_pth(args.compare_with)));
      std::cout << olv2::format_gradient_differences(differences);
      size_t beyond = 0;
      for (const auto& d : differences) beyond += olv2::within_tolerance(d, args.tolerance) ? 0 : 1;
      std::cout << beyond << " of " << differences.size() << " gradients beyond " << args.tolerance
                << " relative\n";
      status = beyond == 0 ? 0 : 1;
    }
  }
  if (collective) {
    collective->barrier();
    olv2::install_process_collective(nullptr);
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Run frames through a model: its losses, outputs or one step's gradients"};
  Arguments args;
  app.add_option("config", args.config, "config file with a `model` section")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--state-dict", args.state_dict,
                 "weights (.pt/.pth state dict); every mode but state-dict")
      ->check(CLI::ExistingFile);
  app.add_option("--input", args.input,
                 "sample: dict of tensors (img, lidar2img, img_shape, ...); every mode but "
                 "state-dict")
      ->check(CLI::ExistingFile);
  app.add_option("--out", args.out, "JSON file to write (grads mode: .pt record)")->required();
  app.add_option("--mode", args.mode,
                 "train: losses and matchings; test: decoded outputs; grads: one step's "
                 "gradients (every frame of --input, or one frame a rank); state-dict: the "
                 "freshly built model's {name: shape}, needing no weights and no frames "
                 "(default train)")
      ->check(CLI::IsMember({"train", "test", "grads", "state-dict"}));
  app.add_option("--launcher", args.launcher,
                 "grads mode: pytorch (torchrun) or slurm (srun) for one frame a rank, gradients "
                 "averaged (default none)")
      ->check(CLI::IsMember({"none", "pytorch", "slurm"}));
  app.add_option("--compare-with", args.compare_with,
                 "grads mode: a reference record (.pt); prints the differences worst first and "
                 "exits 1 when one is beyond --tolerance");
  app.add_option("--tolerance", args.tolerance,
                 "grads mode: largest relative L2 difference (default 1e-5)");
  app.add_flag("--dropout", args.dropout, "keep the configured dropout in train mode");
  app.add_option("--seed", args.seed, "seed of the random number generator (dropout; default 0)");
  if (const auto status = olv2::parse_command_line(app, "probe_model", argc, argv)) return *status;

  return olv2::guarded_main("probe_model", [&] {
    if (args.mode != "state-dict") {
      for (const auto& [flag, value] :
           {std::pair{"--state-dict", args.state_dict}, std::pair{"--input", args.input}}) {
        if (value.empty())
          throw input_error(std::string(flag) + " is required in " + args.mode + " mode");
      }
    }
    if (args.mode == "grads") return probe_gradients(args);
    const nlohmann::ordered_json out =
        args.mode == "state-dict" ? state_dict_shapes(args) : probe(args);
    olv2::write_file_atomic(args.out, out.dump(1) + "\n");
    return 0;
  });
}

}  // namespace olv2::programs::probe_model
