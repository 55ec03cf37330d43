#pragma once
// A frame's decoded head outputs, and their formatting into results-file predictions.
#include <ATen/core/Tensor.h>

#include <vector>

#include "olv2/data/batch.h"
#include "olv2/data/frame_prediction.h"
#include "olv2/models/heads/object_head.h"

namespace olv2 {

// The decoded head outputs of one frame before result formatting (what the original
// detectors' forward_test / simple_test return per sample).
struct FrameTestOutputs {
  Detections lc;    // lanes [Q, 3K] control points in metres, scores [Q, 1]
  Detections te;    // boxes with labels [Q, 5] in raw front pixels, scores [Q]
  at::Tensor lclc;  // [Q_lc, Q_lc] probabilities
  at::Tensor lcte;  // [Q_lc, Q_te]
  // Lane segments only: each query's left and right line types (argmax), [Q_lc, 2].
  at::Tensor line_types;
  Detections areas;  // point sets [V, P, 3] in metres, scores [V, C] sigmoid (MapTR's areas)
};

// Indices of `scores` [N] by decreasing value, ties in index order: the order the original's
// `format_results` lists objects in (its numpy argsort has no ties on real scores).
std::vector<int64_t> by_descending_confidence(const at::Tensor& scores);

// The results-file form of each sample of `batch` (the original dataset's `format_results`):
// lanes as their Bezier curve at t = 0, 0.1, ..., 1, boxes with the argmax attribute,
// topology row-major. The frames' split is left empty for the caller to set.
std::vector<FramePrediction> frame_predictions(const Batch& batch,
                                               const std::vector<FrameTestOutputs>& outputs);

}  // namespace olv2
