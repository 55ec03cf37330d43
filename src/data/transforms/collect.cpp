#include "olv2/data/transforms/collect.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

const std::vector<std::string> kKeys = {"img",
                                        "gt_lc",
                                        "gt_lc_labels",
                                        "gt_te",
                                        "gt_te_labels",
                                        "gt_topology_lclc",
                                        "gt_topology_lcte",
                                        "gt_lane_left_type",
                                        "gt_lane_right_type",
                                        "gt_instance_masks",
                                        "gt_areas",
                                        "gt_area_labels"};
const std::vector<std::string> kMetaKeys = {"scene_token",  "sample_idx", "img_paths", "img_shape",
                                            "scale_factor", "pad_shape",  "lidar2img", "can_bus"};

std::vector<std::string> names_in(const ConfigNode& node, const char* key,
                                  const std::vector<std::string>& allowed) {
  const ConfigNode& list = node.at(key);
  std::vector<std::string> names = list.as_vector<std::string>();
  for (size_t i = 0; i < names.size(); ++i) {
    if (std::find(allowed.begin(), allowed.end(), names[i]) == allowed.end()) {
      std::string known;
      for (const auto& a : allowed) known += (known.empty() ? "" : ", ") + a;
      throw input_error(list[i].where() + ": unknown key '" + names[i] + "' (known: " + known +
                        ")");
    }
  }
  return names;
}

}  // namespace

std::shared_ptr<const Transform> Collect::from_config(const ConfigNode& node) {
  return std::make_shared<Collect>(
      names_in(node, "keys", kKeys),
      node.has("meta_keys") ? names_in(node, "meta_keys", kMetaKeys) : kMetaKeys);
}

Schema Collect::schema() {
  return Schema::map()
      .required("type", Schema::string())
      .required("keys", Schema::sequence(Schema::string()))
      .optional("meta_keys", Schema::sequence(Schema::string()));
}

bool Collect::keeps(const std::string& key) const {
  return std::find(keys_.begin(), keys_.end(), key) != keys_.end();
}

void Collect::apply(PipelineData& data, std::mt19937_64& /*rng*/) const {
  if (!data.formatted)
    throw input_error("pipeline: Collect must come after CustomDefaultFormatBundle");
  if (!data.annotated) {
    for (size_t i = 1; i < kKeys.size(); ++i) {
      if (keeps(kKeys[i])) {
        throw input_error("frame " + data.frame_name + ": no `annotation`, but this pipeline " +
                          "collects " + kKeys[i] +
                          " (training needs annotated frames; test_ds predicts unannotated ones)");
      }
    }
  }
  Sample& s = data.sample;
  if (keeps("gt_lc") && data.annotated && !s.gt_lc.defined()) {
    throw input_error(
        "frame " + data.frame_name +
        ": this pipeline collects the lanes (gt_lanes_3d), but its lane segments are lines of "
        "different lengths; LaneSegmentParameterize3D must come before the format "
        "bundle");
  }
  if (!keeps("img")) s.img = at::Tensor();
  at::Tensor* gt[] = {&s.gt_lc,
                      &s.gt_lc_labels,
                      &s.gt_te,
                      &s.gt_te_labels,
                      &s.gt_topology_lclc,
                      &s.gt_topology_lcte,
                      &s.gt_lane_left_type,
                      &s.gt_lane_right_type,
                      &s.gt_instance_masks,
                      &s.gt_areas,
                      &s.gt_area_labels};
  for (size_t i = 0; i + 1 < kKeys.size(); ++i) {
    if (!keeps(kKeys[i + 1])) *gt[i] = at::Tensor();
  }
  if (keeps("gt_instance_masks") && data.annotated && !s.gt_instance_masks.defined()) {
    throw input_error("frame " + data.frame_name +
                      ": this pipeline collects gt_instance_masks, but no GenerateLaneSegmentMask "
                      "made them");
  }
  if (keeps("gt_areas") && data.annotated && !s.gt_areas.defined()) {
    throw input_error("frame " + data.frame_name +
                      ": this pipeline collects the areas (gt_areas_3d), but its "
                      "LoadAnnotations3DLaneSegment does not load them (with_area: true)");
  }

  const int64_t n = static_cast<int64_t>(data.lidar2img.size());
  s.lidar2img = at::empty({n, 4, 4}, at::kDouble);
  for (int64_t i = 0; i < n; ++i)
    std::copy(data.lidar2img[i].begin(), data.lidar2img[i].end(),
              s.lidar2img.data_ptr<double>() + i * 16);
  s.can_bus = at::empty({18}, at::kDouble);
  std::copy(data.can_bus.begin(), data.can_bus.end(), s.can_bus.data_ptr<double>());

  ImageMeta& meta = s.meta;
  meta.scene_token = data.scene_token;
  meta.sample_idx = data.sample_idx;
  meta.img_paths = data.img_paths;
  meta.img_shape = data.img_shape;
  meta.pad_shape = data.pad_shape.empty() ? data.img_shape : data.pad_shape;
  meta.scale_factor = data.scale_factor;
  meta.crop_shape = data.crop_shape;
}

const std::vector<std::string>& Collect::all_meta_keys() { return kMetaKeys; }

}  // namespace olv2
