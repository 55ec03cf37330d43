// Decoding of TEDeformableDETRHead outputs (the overridden `_get_bboxes_single`): every query in
// query order; `test_cfg.max_per_img` is never applied.
#include <torch/torch.h>

#include "olv2/losses/box_ops.h"
#include "olv2/models/heads/te_deformable_detr_head.h"
#include "olv2/util/error.h"

namespace olv2 {

Detections TeDeformableDetrHeadImpl::decode(const HeadOutputs& outputs, int64_t sample,
                                            std::pair<int64_t, int64_t> img_shape,
                                            const std::vector<double>& scale_factor) const {
  if (!scale_factor.empty() && scale_factor.size() != 4) {
    throw runtime_error("TEDeformableDETRHead decoding: scale_factor has " +
                        std::to_string(scale_factor.size()) + " values, expected 4");
  }
  const at::Tensor cls_scores = outputs.cls_scores[-1][sample].to(torch::kFloat);
  const at::Tensor bbox_preds = outputs.reg_preds[-1][sample].to(torch::kFloat);
  const auto [scores, labels] = cls_scores.sigmoid().max(-1);
  const auto w = static_cast<double>(img_shape.second);
  const auto h = static_cast<double>(img_shape.first);
  const at::Tensor size = torch::tensor({w, h, w, h}, bbox_preds.options());
  at::Tensor boxes = torch::minimum((bbox_cxcywh_to_xyxy(bbox_preds) * size).clamp_min(0.0), size);
  if (!scale_factor.empty()) boxes = boxes / torch::tensor(scale_factor, boxes.options());
  Detections detections;
  detections.scores = scores;
  detections.objects = torch::cat({boxes, labels.unsqueeze(1).to(boxes.scalar_type())}, -1);
  return detections;
}

}  // namespace olv2
