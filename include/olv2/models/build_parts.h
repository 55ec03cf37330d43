#pragma once
#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "olv2/assign/hungarian_assigner.h"
#include "olv2/assign/lane_hungarian_assigner.h"
#include "olv2/assign/match_costs.h"
#include "olv2/config/config_node.h"
#include "olv2/losses/focal_loss.h"
#include "olv2/models/backbones/resnet.h"
#include "olv2/models/detectors/detector.h"
#include "olv2/util/error.h"

namespace olv2 {

// Config readers shared by the detectors' builders; each error names the file, line and key.

// Exactly N numbers.
template <size_t N>
std::array<double, N> fixed_numbers(const ConfigNode& node) {
  const std::vector<double> values = node.as_vector<double>();
  if (values.size() != N) {
    throw input_error(node.where() + ": expected " + std::to_string(N) + " numbers, got " +
                      std::to_string(values.size()));
  }
  std::array<double, N> out{};
  std::copy(values.begin(), values.end(), out.begin());
  return out;
}

// mmdet `ResNet` (the stem follows base_channels unless stem_channels is given).
ResNetOptions resnet_from_config(const ConfigNode& cfg);
// `FocalLoss` over the defaults `o` (null or absent: `o`); only use_sigmoid: true.
FocalLossOptions focal_from_config(const ConfigNode* cfg, FocalLossOptions o);
FocalLossCostOptions focal_cost_from_config(const ConfigNode* cfg);
// cfg[key][weight_key], or `fallback` when either is absent or null.
double weight_of(const ConfigNode& cfg, const std::string& key, const std::string& weight_key,
                 double fallback);
// `HungarianAssigner` / `LaneHungarianAssigner` costs over the defaults of their options; an
// assigner of another type is an input error naming the key.
HungarianAssignerOptions box_assigner_from_config(const ConfigNode& assigner);
LaneHungarianAssignerOptions lane_assigner_from_config(const ConfigNode& assigner);
// mmdet's `add_extra_convs` of an FPN config: "" (none), or the source; `true` = "on_input".
std::string add_extra_convs_from_config(const ConfigNode& fpn);
// Loads `init_cfg` (type Pretrained) into the backbone, as mmcv does (non-strict, `prefix`).
void load_pretrained_backbone(ResNetImpl& backbone, const ConfigNode& init_cfg);

// The registry's builder of `type: BaselineLarge` (with its pretrained backbone, if any).
std::shared_ptr<DetectorImpl> build_baseline_large(const ConfigNode& model);

}  // namespace olv2
