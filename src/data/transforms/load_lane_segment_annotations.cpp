#include "olv2/data/transforms/load_lane_segment_annotations.h"

#include <array>
#include <string>
#include <vector>

#include "olv2/data/pipeline_data.h"
#include "olv2/data/polyline_resample.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

const char* const kRequiredFlags[] = {"with_lane_3d", "with_lane_label_3d", "with_lane_adj",
                                      "with_lane_type"};
const char* const kOtherFlags[] = {
    "with_lane_lste_adj", "with_area",       "with_bbox",    "with_label",  "with_bbox_3d",
    "with_label_3d",      "with_attr_label", "with_mask_3d", "with_seg_3d", "with_bbox_depth",
    "poly2mask",          "with_seg",        "with_mask"};

}  // namespace

std::shared_ptr<const Transform> LoadLaneSegmentAnnotations::from_config(const ConfigNode& node) {
  for (const char* flag : kRequiredFlags) {
    if (const ConfigNode* value = node.find(flag); value != nullptr && !value->as_bool()) {
      throw input_error(value->where() + ": " + flag +
                        ": false is not supported (the lane segments, their labels, adjacency "
                        "and line types are always loaded, as LaneSegNet's config asks)");
    }
  }
  return std::make_shared<LoadLaneSegmentAnnotations>(node.get<bool>("with_area", false));
}

Schema LoadLaneSegmentAnnotations::schema() {
  Schema schema = Schema::map();
  schema.required("type", Schema::string());
  for (const char* flag : kRequiredFlags) schema.optional(flag, Schema::boolean());
  for (const char* flag : kOtherFlags) schema.optional(flag, Schema::boolean());
  return schema;
}

void LoadLaneSegmentAnnotations::apply(PipelineData& data, std::mt19937_64& /*rng*/) const {
  if (data.frame_format != FrameFormat::kLaneSegment) {
    throw input_error("frame " + data.frame_name +
                      ": LoadAnnotations3DLaneSegment reads v2.x lane-segment frames "
                      "(<timestamp>-ls.json); this is a v1.x centerline frame");
  }
  if (with_area_) {
    // The Map Element Bucket's get_ann_info: every area a point set of its own.
    data.area_points = kMapElementAreaPoints;
    for (const Area& area : data.gt_areas) {
      std::vector<std::array<double, 3>> points;
      for (int64_t k = 0; k < area.num_points(); ++k) {
        const float* p = area.points.data() + 3 * k;
        points.push_back({p[0], p[1], p[2]});
      }
      for (const std::array<double, 3>& p : resample_by_length(points, kMapElementAreaPoints)) {
        data.gt_area_points.insert(data.gt_area_points.end(), p.begin(), p.end());
      }
      data.gt_area_labels.push_back(area.category - 1);
    }
    data.gt_areas.clear();
    return;
  }
  // LaneSegNet's get_ann_info: each pedestrian crossing after the lane segments, as a segment of
  // label 1 with no line types; road boundaries are left out.
  for (const Area& area : data.gt_areas) {
    if (area.category != kPedestrianCrossing) continue;
    if (area.num_points() != 5) {
      throw input_error("frame " + data.frame_name + ": pedestrian crossing " +
                        std::to_string(area.id) + " has " + std::to_string(area.num_points()) +
                        " points; LaneSegNet turns a crossing of 5 (closing on the first) into a "
                        "lane segment, as its `_lanesegnet` collections keep them (the devkit's "
                        "`_ls` collections resample areas to 20)");
    }
    data.gt_lane_segment_lines.push_back(ped_crossing_as_lane_segment(area));
    data.gt_lane_labels.push_back(1);
    data.gt_lane_left_type.push_back(0);
    data.gt_lane_right_type.push_back(0);
  }
  data.gt_areas.clear();
  data.num_lanes = static_cast<int64_t>(data.gt_lane_segment_lines.size());
}

}  // namespace olv2
