#include "olv2/losses/box_ops.h"

#include <torch/torch.h>

namespace olv2 {

at::Tensor bbox_cxcywh_to_xyxy(const at::Tensor& boxes) {
  const auto parts = boxes.split(1, -1);
  const auto& cx = parts[0];
  const auto& cy = parts[1];
  const auto& w = parts[2];
  const auto& h = parts[3];
  return torch::cat({cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h}, -1);
}

at::Tensor bbox_xyxy_to_cxcywh(const at::Tensor& boxes) {
  const auto parts = boxes.split(1, -1);
  const auto& x1 = parts[0];
  const auto& y1 = parts[1];
  const auto& x2 = parts[2];
  const auto& y2 = parts[3];
  return torch::cat({(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1}, -1);
}

at::Tensor bbox_overlaps(const at::Tensor& a, const at::Tensor& b, IouMode mode, bool aligned,
                         double eps) {
  // Unaligned: broadcast a as [N, 1, 4] against b as [1, M, 4].
  const at::Tensor lhs = aligned ? a : a.unsqueeze(-2);
  const at::Tensor rhs = aligned ? b : b.unsqueeze(-3);
  const auto area = [](const at::Tensor& box) {
    return (box.select(-1, 2) - box.select(-1, 0)) * (box.select(-1, 3) - box.select(-1, 1));
  };
  const at::Tensor lhs_min = lhs.narrow(-1, 0, 2);
  const at::Tensor lhs_max = lhs.narrow(-1, 2, 2);
  const at::Tensor rhs_min = rhs.narrow(-1, 0, 2);
  const at::Tensor rhs_max = rhs.narrow(-1, 2, 2);

  const at::Tensor inter_wh =
      (torch::min(lhs_max, rhs_max) - torch::max(lhs_min, rhs_min)).clamp_min(0);
  const at::Tensor overlap = inter_wh.select(-1, 0) * inter_wh.select(-1, 1);
  const at::Tensor eps_tensor = torch::full({1}, eps, overlap.options());
  const at::Tensor union_area = torch::max(area(lhs) + area(rhs) - overlap, eps_tensor);
  const at::Tensor iou = overlap / union_area;
  if (mode == IouMode::kIou) return iou;

  const at::Tensor enclose_wh =
      (torch::max(lhs_max, rhs_max) - torch::min(lhs_min, rhs_min)).clamp_min(0);
  const at::Tensor enclose_area =
      torch::max(enclose_wh.select(-1, 0) * enclose_wh.select(-1, 1), eps_tensor);
  return iou - (enclose_area - union_area) / enclose_area;
}

}  // namespace olv2
