#include "olv2/models/build.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "olv2/config/schema.h"
#include "olv2/models/build_parts.h"
#include "olv2/models/model_schema.h"
#include "olv2/util/error.h"
#include "olv2/util/platform.h"
#include "olv2/util/pth/pth_file.h"
#include "olv2/util/state_dict.h"

namespace olv2 {

ResNetOptions resnet_from_config(const ConfigNode& cfg) {
  ResNetOptions o;
  o.depth = cfg.at("depth").as_int();
  o.in_channels = cfg.get<int64_t>("in_channels", o.in_channels);
  o.base_channels = cfg.get<int64_t>("base_channels", o.base_channels);
  o.stem_channels = cfg.get<int64_t>("stem_channels", o.base_channels);
  o.num_stages = cfg.get<int64_t>("num_stages", o.num_stages);
  if (const ConfigNode* v = cfg.find("strides")) o.strides = v->as_vector<int64_t>();
  if (const ConfigNode* v = cfg.find("dilations")) o.dilations = v->as_vector<int64_t>();
  if (const ConfigNode* v = cfg.find("out_indices")) o.out_indices = v->as_vector<int64_t>();
  o.style = cfg.get<std::string>("style", o.style);
  o.frozen_stages = cfg.get<int64_t>("frozen_stages", o.frozen_stages);
  if (const ConfigNode* norm = cfg.find("norm_cfg")) {
    o.norm_requires_grad = norm->get<bool>("requires_grad", true);
  }
  o.norm_eval = cfg.get<bool>("norm_eval", o.norm_eval);
  o.with_cp = cfg.get<bool>("with_cp", o.with_cp);
  o.zero_init_residual = cfg.get<bool>("zero_init_residual", o.zero_init_residual);
  return o;
}

namespace {

CustomFpnOptions fpn_from_config(const ConfigNode& cfg) {
  CustomFpnOptions o;
  o.in_channels = cfg.at("in_channels").as_vector<int64_t>();
  o.out_channels = cfg.at("out_channels").as_int();
  o.num_outs = cfg.at("num_outs").as_int();
  o.start_level = cfg.get<int64_t>("start_level", 0);
  o.end_level = cfg.get<int64_t>("end_level", -1);
  // The original's default out_ids is an empty list, which fails at forward time.
  if (const ConfigNode* v = cfg.find("out_ids")) o.out_ids = v->as_vector<int64_t>();
  o.add_extra_convs = add_extra_convs_from_config(cfg);
  o.relu_before_extra_convs = cfg.get<bool>("relu_before_extra_convs", false);
  return o;
}

CustomIpmViewTransformerOptions ipm_from_config(const ConfigNode& cfg) {
  CustomIpmViewTransformerOptions o;
  o.num_cam = cfg.at("num_cam").as_int();
  o.xbound = fixed_numbers<3>(cfg.at("xbound"));
  o.ybound = fixed_numbers<3>(cfg.at("ybound"));
  o.zbound = fixed_numbers<3>(cfg.at("zbound"));
  o.out_channels = cfg.at("out_channels").as_int();
  return o;
}

}  // namespace

FocalLossOptions focal_from_config(const ConfigNode* cfg, FocalLossOptions o) {
  if (cfg == nullptr || cfg->is_null()) return o;
  if (!cfg->get<bool>("use_sigmoid", true)) {
    throw input_error(cfg->where() + ": only use_sigmoid: true is supported (as the original)");
  }
  o.gamma = cfg->get<double>("gamma", o.gamma);
  o.alpha = cfg->get<double>("alpha", o.alpha);
  o.loss_weight = cfg->get<double>("loss_weight", o.loss_weight);
  return o;
}

FocalLossCostOptions focal_cost_from_config(const ConfigNode* cfg) {
  FocalLossCostOptions o;
  if (cfg == nullptr) return o;
  o.weight = cfg->get<double>("weight", o.weight);
  o.alpha = cfg->get<double>("alpha", o.alpha);
  o.gamma = cfg->get<double>("gamma", o.gamma);
  return o;
}

double weight_of(const ConfigNode& cfg, const std::string& key, const std::string& weight_key,
                 double fallback) {
  const ConfigNode* node = cfg.find(key);
  return node == nullptr || node->is_null() ? fallback : node->get<double>(weight_key, fallback);
}

namespace {

CustomDetrHeadOptions detr_head_from_config(const ConfigNode& cfg) {
  CustomDetrHeadOptions o;
  const bool lane = cfg.at("object_type").as_string() == "lane";
  o.object_type = lane ? DetrObjectType::kLane : DetrObjectType::kBox;
  o.num_classes = cfg.at("num_classes").as_int();
  o.in_channels = cfg.at("in_channels").as_int();
  o.num_query = cfg.at("num_query").as_int();
  o.num_reg_dim = cfg.get<int64_t>("num_reg_dim", 4);
  // As the original: lanes need 3 coordinates per control point, boxes exactly 4 numbers.
  if (lane ? o.num_reg_dim % 3 != 0 : o.num_reg_dim != 4) {
    throw input_error(cfg.where() +
                      ": num_reg_dim must be a multiple of 3 for lanes and 4 for boxes");
  }
  o.num_layers = cfg.get<int64_t>("num_layers", o.num_layers);
  o.feedforward_channels = cfg.get<int64_t>("feedforward_channels", o.feedforward_channels);
  o.embed_dims = cfg.get<int64_t>("embed_dims", o.embed_dims);
  o.num_heads = cfg.get<int64_t>("num_heads", o.num_heads);
  o.dropout = cfg.get<double>("dropout", o.dropout);
  o.ffn_dropout = cfg.get<double>("ffn_dropout", o.ffn_dropout);
  o.loss_cls = focal_from_config(cfg.find("loss_cls"), o.loss_cls);
  o.loss_bbox_weight = weight_of(cfg, "loss_bbox", "loss_weight", 1.0);
  o.loss_iou_weight = weight_of(cfg, "loss_iou", "loss_weight", 1.0);

  const ConfigNode& assigner = cfg.at("train_cfg").at("assigner");
  if (lane) {
    if (const ConfigNode* range = cfg.find("bev_range"))
      o.bev_range = fixed_numbers<6>(*range);
    else
      throw input_error(cfg.where() + ": a lane head needs `bev_range`");
    o.lane_assigner = lane_assigner_from_config(assigner);
  } else {
    o.box_assigner = box_assigner_from_config(assigner);
  }
  return o;
}

TopologyHeadOptions topology_head_from_config(const ConfigNode& cfg) {
  TopologyHeadOptions o;
  o.in_channels = cfg.at("in_channels").as_int();
  o.hidden_channels = cfg.at("hidden_channels").as_int();
  o.out_channels = cfg.at("out_channels").as_int();
  o.num_layers = cfg.at("num_layers").as_int();
  o.loss_cls = focal_from_config(cfg.find("loss_cls"), FocalLossOptions{});
  return o;
}

}  // namespace

namespace {

void require_assigner_type(const ConfigNode& assigner, const std::string& type,
                           const std::string& head) {
  if (assigner.at("type").as_string() != type) {
    throw input_error(assigner.at("type").where() + ": a " + head + " head needs " + type);
  }
}

}  // namespace

HungarianAssignerOptions box_assigner_from_config(const ConfigNode& assigner) {
  require_assigner_type(assigner, "HungarianAssigner", "bbox");
  HungarianAssignerOptions o;
  o.cls_cost = focal_cost_from_config(assigner.find("cls_cost"));
  o.reg_cost_weight = weight_of(assigner, "reg_cost", "weight", 1.0);
  if (const ConfigNode* reg = assigner.find("reg_cost")) {
    o.reg_box_format =
        reg->get<std::string>("box_format", "xyxy") == "xywh" ? BoxFormat::kXywh : BoxFormat::kXyxy;
  }
  o.iou_cost_weight = weight_of(assigner, "iou_cost", "weight", 1.0);
  if (const ConfigNode* iou = assigner.find("iou_cost")) {
    o.iou_mode =
        iou->get<std::string>("iou_mode", "giou") == "giou" ? IouMode::kGiou : IouMode::kIou;
  }
  return o;
}

LaneHungarianAssignerOptions lane_assigner_from_config(const ConfigNode& assigner) {
  require_assigner_type(assigner, "LaneHungarianAssigner", "lane");
  LaneHungarianAssignerOptions o;
  o.cls_cost = focal_cost_from_config(assigner.find("cls_cost"));
  o.reg_cost_weight = weight_of(assigner, "reg_cost", "weight", 1.0);
  if (const ConfigNode* range = assigner.find("bev_range")) o.bev_range = fixed_numbers<6>(*range);
  o.normalize = assigner.get<bool>("normalize", false);
  return o;
}

std::string add_extra_convs_from_config(const ConfigNode& fpn) {
  const ConfigNode* extra = fpn.find("add_extra_convs");
  if (extra == nullptr || extra->is_null()) return "";
  return extra->is_bool() ? (extra->as_bool() ? "on_input" : "") : extra->as_string();
}

namespace {

std::filesystem::path torch_home() {
  const auto set = [](const char* name) {
    return platform::environment_variable(name).value_or("");
  };
  if (const std::string home = set("TORCH_HOME"); !home.empty()) return home;
  if (const std::string cache = set("XDG_CACHE_HOME"); !cache.empty()) {
    return std::filesystem::path(cache) / "torch";
  }
  const std::string user_home = set("HOME");
  return std::filesystem::path(user_home.empty() ? "." : user_home) / ".cache" / "torch";
}

}  // namespace

void load_pretrained_backbone(ResNetImpl& backbone, const ConfigNode& init_cfg) {
  const ConfigNode& checkpoint = init_cfg.at("checkpoint");
  std::filesystem::path file;
  try {
    file = resolve_pretrained_checkpoint(checkpoint.as_string());
  } catch (const Error& error) {
    throw input_error(checkpoint.where() + ": " + error.what());
  }
  PthValue value = read_pth(file);
  // mmcv accepts a bare state dict or one under `state_dict`.
  if (value.is_dict()) {
    if (const PthValue* nested = value.find("state_dict")) {
      const PthValue inner = *nested;
      value = inner;
    }
  }
  LoadStateDictOptions options;
  options.strict = false;  // as mmcv: torchvision's `fc.*` and absent buffers are not errors
  options.prefix = init_cfg.get<std::string>("prefix", "");
  load_state_dict(backbone, tensors_of(value), options);
}

namespace {

std::shared_ptr<DetectorImpl> build_baseline(const ConfigNode& model) {
  auto detector = std::make_shared<BaselineImpl>(baseline_options_from_config(model));
  const ConfigNode* init_cfg = model.at("img_backbone").find("init_cfg");
  if (init_cfg != nullptr && !init_cfg->is_null()) {
    load_pretrained_backbone(*detector->img_backbone(), *init_cfg);
  }
  return detector;
}

}  // namespace

std::filesystem::path resolve_pretrained_checkpoint(const std::string& checkpoint) {
  const std::string scheme = "torchvision://";
  const std::string alternative =
      "; or train from mmdet's own ResNet initialisation with --cfg-options "
      "model.img_backbone.init_cfg=null";
  if (checkpoint.rfind(scheme, 0) != 0) {
    if (!std::filesystem::is_regular_file(checkpoint)) {
      throw input_error("pretrained checkpoint `" + checkpoint + "` not found" + alternative);
    }
    return checkpoint;
  }
  const std::string name = checkpoint.substr(scheme.size());
  const std::filesystem::path directory = torch_home() / "hub" / "checkpoints";
  std::vector<std::filesystem::path> candidates;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ignored)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind(name + "-", 0) == 0 && entry.path().extension() == ".pth") {
      candidates.push_back(entry.path());
    }
  }
  if (candidates.empty()) {
    throw input_error("`" + checkpoint + "` resolves to " +
                      (directory / (name + "-*.pth")).string() +
                      " (torchvision's file, e.g. resnet18-f37072fd.pth), which does not exist; "
                      "download it there or set TORCH_HOME" +
                      alternative);
  }
  // Several downloads of one model (older/newer torchvision hashes) hold the same weights.
  std::sort(candidates.begin(), candidates.end());
  return candidates.front();
}

BaselineOptions baseline_options_from_config(const ConfigNode& model) {
  validate_config(model, model_schema());
  BaselineOptions o;
  o.img_backbone = resnet_from_config(model.at("img_backbone"));
  o.img_neck = fpn_from_config(model.at("img_neck"));
  o.img_view_transformer = ipm_from_config(model.at("img_view_transformer"));
  o.lc_head = detr_head_from_config(model.at("lc_head"));
  o.te_head = detr_head_from_config(model.at("te_head"));
  o.lclc_head = topology_head_from_config(model.at("lclc_head"));
  o.lcte_head = topology_head_from_config(model.at("lcte_head"));
  if (const ConfigNode* stages = model.find("checkpoint")) {
    o.checkpoint = stages->as_vector<std::string>();
  }
  return o;
}

const std::map<std::string, DetectorFactory>& detector_registry() {
  static const std::map<std::string, DetectorFactory> registry = {
      {"Baseline", build_baseline},
      {"BaselineLarge", build_baseline_large},
  };
  return registry;
}

std::shared_ptr<DetectorImpl> build_detector(const ConfigNode& model) {
  const ConfigNode& type = model.at("type");
  const auto& registry = detector_registry();
  const auto found = registry.find(type.as_string());
  if (found == registry.end()) {
    std::string known;
    for (const auto& [name, factory] : registry) known += (known.empty() ? "" : ", ") + name;
    throw input_error(type.where() + ": unknown model type `" + type.as_string() +
                      "` (expected one of: " + known + ")");
  }
  return found->second(model);
}

BevRange detector_bev_range(const ConfigNode& model) {
  const ConfigNode& type = model.at("type");
  if (type.as_string() == "Baseline") return baseline_options_from_config(model).lc_head.bev_range;
  if (type.as_string() == "BaselineLarge") {
    return baseline_large_options_from_config(model).pts_bbox_head.pc_range;
  }
  throw input_error(type.where() + ": no BEV range known for model type `" + type.as_string() +
                    "`");
}

}  // namespace olv2
