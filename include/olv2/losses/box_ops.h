#pragma once
// Box conversions and mmdet's IoU and GIoU of boxes, shared by the losses and the match costs.
#include <ATen/core/Tensor.h>

namespace olv2 {

// (cx, cy, w, h) -> (x1, y1, x2, y2) over the last dimension.
at::Tensor bbox_cxcywh_to_xyxy(const at::Tensor& boxes);

// (x1, y1, x2, y2) -> (cx, cy, w, h) over the last dimension.
at::Tensor bbox_xyxy_to_cxcywh(const at::Tensor& boxes);

enum class IouMode { kIou, kGiou };

// IoU or generalised IoU of xyxy boxes as mmdet's `bbox_overlaps` computes them: union and
// enclosing area are floored at `eps`. Aligned: a [N, 4], b [N, 4] -> [N]; otherwise
// a [N, 4], b [M, 4] -> [N, M].
at::Tensor bbox_overlaps(const at::Tensor& a, const at::Tensor& b, IouMode mode, bool aligned,
                         double eps = 1e-6);

inline at::Tensor generalized_box_iou(const at::Tensor& a, const at::Tensor& b, bool aligned,
                                      double eps = 1e-6) {
  return bbox_overlaps(a, b, IouMode::kGiou, aligned, eps);
}

}  // namespace olv2
