#include "olv2/models/heads/object_head.h"

#include <string>

#include "olv2/models/heads/custom_detr_head.h"
#include "olv2/models/heads/lc_deformable_detr_head.h"
#include "olv2/models/heads/te_deformable_detr_head.h"
#include "olv2/models/heads/toponet_head.h"
#include "olv2/util/error.h"

namespace olv2 {

namespace {

std::shared_ptr<const ObjectHeadOptions> read_head(const Registry<ObjectHeadOptions>& registry,
                                                   const ConfigNode& section,
                                                   AssignedObjects expected) {
  std::shared_ptr<const ObjectHeadOptions> head = registry.read(section);
  if (head->objects() != expected) {
    throw input_error(section.where() + ": this " + section.at("type").as_string() + " detects " +
                      describe(head->objects()) + ", the detector expects " + describe(expected) +
                      " here");
  }
  return head;
}

}  // namespace

Detections last_layer_lanes(const HeadOutputs& outputs, int64_t sample) {
  Detections detections;
  detections.objects = outputs.reg_preds[-1][sample];
  detections.scores = outputs.cls_scores[-1][sample].sigmoid();
  return detections;
}

const Registry<ObjectHeadOptions>& lane_head_registry() {
  using Registry = Registry<ObjectHeadOptions>;
  static const Registry registry(
      "lane head", {
                       {"CustomDETRHead", Registry::entry<CustomDetrHeadOptions>()},
                       {"LCDeformableDETRHead", Registry::entry<LcDeformableDetrHeadOptions>()},
                       {"TopoNetHead", Registry::entry<TopoNetHeadOptions>()},
                   });
  return registry;
}

const Registry<ObjectHeadOptions>& traffic_element_head_registry() {
  using Registry = Registry<ObjectHeadOptions>;
  static const Registry registry(
      "traffic-element head",
      {
          {"CustomDETRHead", Registry::entry<CustomDetrHeadOptions>()},
          {"TEDeformableDETRHead", Registry::entry<TeDeformableDetrHeadOptions>()},
          {"CustomDeformableDETRHead", Registry::entry<TeDeformableDetrHeadOptions>()},
      });
  return registry;
}

std::shared_ptr<const ObjectHeadOptions> read_lane_head(const ConfigNode& section,
                                                        bool with_traffic_elements) {
  std::shared_ptr<const ObjectHeadOptions> head =
      read_head(lane_head_registry(), section, AssignedObjects::kLanes);
  if (head->predicts_relations() != with_traffic_elements) {
    throw input_error(
        section.at("type").where() + ": " + section.at("type").as_string() +
        (with_traffic_elements
             ? " predicts no relations; this detector's lane head decodes with the "
               "traffic-element head's outputs and predicts the lane-lane and "
               "lane-traffic-element relations itself (TopoNetHead)"
             : " decodes with the traffic-element head's outputs and predicts the relations "
               "itself; this detector runs its lane head on the BEV alone, with relation heads "
               "of its own"));
  }
  return head;
}

std::shared_ptr<const ObjectHeadOptions> read_traffic_element_head(const ConfigNode& section) {
  return read_head(traffic_element_head_registry(), section, AssignedObjects::kBoxes);
}

}  // namespace olv2
