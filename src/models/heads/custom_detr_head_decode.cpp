// Decoding of CustomDetrHead outputs (the original `_get_bboxes_single`): every query is
// returned in query order, with no sorting, top-k or threshold.
#include <torch/torch.h>

#include "olv2/losses/box_ops.h"
#include "olv2/models/heads/custom_detr_head.h"
#include "olv2/util/error.h"

namespace olv2 {

Detections CustomDetrHeadImpl::decode(const HeadOutputs& outputs, int64_t sample,
                                      std::pair<int64_t, int64_t> img_shape,
                                      const std::vector<double>& scale_factor) const {
  const at::Tensor cls_scores = outputs.cls_scores[-1][sample];
  const at::Tensor reg_preds = outputs.reg_preds[-1][sample];
  if (options_.object_type == DetrObjectType::kLane) return decode_lanes(cls_scores, reg_preds);
  return decode_boxes(cls_scores, reg_preds, img_shape, scale_factor);
}

Detections CustomDetrHeadImpl::decode_lanes(const at::Tensor& cls_scores,
                                            const at::Tensor& reg_preds) const {
  Detections detections;
  detections.scores = cls_scores.sigmoid();
  detections.objects = denormalize_lane_points(reg_preds, options_.lane_range);
  return detections;
}

Detections CustomDetrHeadImpl::decode_boxes(const at::Tensor& cls_scores,
                                            const at::Tensor& reg_preds,
                                            std::pair<int64_t, int64_t> img_shape,
                                            const std::vector<double>& scale_factor) const {
  const auto [scores, labels] = cls_scores.sigmoid().max(-1);
  const double img_h = static_cast<double>(img_shape.first);
  const double img_w = static_cast<double>(img_shape.second);
  at::Tensor boxes = bbox_cxcywh_to_xyxy(reg_preds);
  at::Tensor xs = boxes.slice(1, 0, c10::nullopt, 2);
  at::Tensor ys = boxes.slice(1, 1, c10::nullopt, 2);
  xs.copy_((xs * img_w).clamp(0.0, img_w));
  ys.copy_((ys * img_h).clamp(0.0, img_h));
  if (!scale_factor.empty()) {
    if (scale_factor.size() != 4) {
      throw runtime_error("CustomDETRHead decoding: scale_factor has " +
                          std::to_string(scale_factor.size()) + " values, expected 4");
    }
    boxes = boxes / torch::tensor(scale_factor, boxes.options());
  }
  Detections detections;
  detections.scores = scores;
  detections.objects = torch::cat({boxes, labels.unsqueeze(1).to(boxes.scalar_type())}, -1);
  return detections;
}

}  // namespace olv2
