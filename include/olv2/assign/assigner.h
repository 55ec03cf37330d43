#pragma once
// The assigners a head's `assigner` section may name, by `type`.
#include <ATen/core/Tensor.h>

#include <memory>

#include "olv2/assign/assign_result.h"
#include "olv2/config/registry.h"

namespace olv2 {

// What an assigner matches: a head's predictions for one frame and that frame's ground truth.
struct AssignInputs {
  at::Tensor predictions;  // [Q, R]: boxes (cx, cy, w, h) normalised by the image, or lanes
  at::Tensor cls_logits;   // [Q, C]
  at::Tensor targets;      // [G, R]: boxes xyxy in pixels, or lanes in metres; point sets
                           // [G, S, R]: each GT in its S orders
  at::Tensor labels;       // [G]
  double img_h = 0.0;      // the un-padded image (boxes)
  double img_w = 0.0;
  // Lane segments: each query's mask logits [Q, h, w] and the GT instance masks [G, h, w] 0/1.
  at::Tensor mask_logits = {};
  at::Tensor target_masks = {};
};

// What an assigner's predictions and targets are; a head checks that its assigner matches its
// objects. Lane segments are lanes with instance masks; point sets are matched in whichever of
// their orders fits best (MapTR's areas).
enum class AssignedObjects { kBoxes, kLanes, kLaneSegments, kPointSets };

// "boxes", "lanes", "lane segments" or "point sets", for messages.
const char* describe(AssignedObjects objects);

// mmdet's assigner: a cost between every query and every ground-truth object, then a
// minimum-cost one-to-one matching (Hungarian, on the CPU in double precision).
class Assigner {
 public:
  virtual ~Assigner() = default;
  // Every query is negative when there is no ground truth or no query. Virtual so that a
  // matching can be replayed instead of recomputed (the CUDA tests replay the CPU run's).
  virtual AssignResult assign(const AssignInputs& inputs) const;
  // The [Q, G] float32 cost matrix the matching minimises.
  virtual at::Tensor cost(const AssignInputs& inputs) const = 0;
};

// An assigner's options, as read from an `assigner` section.
struct AssignerOptions {
  virtual ~AssignerOptions() = default;
  virtual std::shared_ptr<const Assigner> build() const = 0;
  virtual AssignedObjects objects() const = 0;
};

// The assigners an `assigner.type` may name.
const Registry<AssignerOptions>& assigner_registry();

// A head's `train_cfg`: `{assigner: <any registered assigner>}`.
Schema assigner_train_cfg_schema();

// The assigner of a head's `train_cfg.assigner`; `fallback` when the head has no `train_cfg`
// (an input error when that is null too). An input error naming the section unless the
// assigner matches the head's `objects`.
std::shared_ptr<const AssignerOptions> read_train_cfg_assigner(
    const ConfigNode& head, AssignedObjects objects,
    std::shared_ptr<const AssignerOptions> fallback);

// Matches the rows (queries) of a [Q, G] cost matrix to its columns (GTs) on the CPU in double
// precision and returns the assignment result.
AssignResult match_by_cost(const at::Tensor& cost, int64_t num_queries, int64_t num_gts);

}  // namespace olv2
