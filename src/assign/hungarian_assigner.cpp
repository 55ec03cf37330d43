#include "olv2/assign/hungarian_assigner.h"

#include <torch/torch.h>

#include "olv2/assign/assigner_config.h"
#include "olv2/assign/linear_sum_assignment.h"
#include "olv2/config/section_readers.h"

namespace olv2 {

Schema HungarianAssignerOptions::schema() {
  Schema reg_cost = weighted_cost_schema("BBoxL1Cost");
  reg_cost.optional("box_format", Schema::string().choices({"xyxy", "xywh"}));
  Schema assigner = typed_schema("HungarianAssigner");
  assigner.optional("cls_cost", FocalLossCostOptions::schema())
      .optional("reg_cost", reg_cost)
      .optional("iou_cost", iou_cost_schema());
  return assigner;
}

HungarianAssignerOptions HungarianAssignerOptions::from_config(const ConfigNode& assigner) {
  require_assigner_type(assigner, "HungarianAssigner");
  HungarianAssignerOptions o;
  o.cls_cost = FocalLossCostOptions::from_config(assigner.find("cls_cost"));
  o.reg_cost_weight = nested_number(assigner, "reg_cost", "weight", o.reg_cost_weight);
  if (const ConfigNode* reg = assigner.find("reg_cost"); reg != nullptr && !reg->is_null()) {
    if (const ConfigNode* format = reg->find("box_format")) {
      o.reg_box_format = format->as_string() == "xywh" ? BoxFormat::kXywh : BoxFormat::kXyxy;
    }
  }
  o.iou_cost_weight = nested_number(assigner, "iou_cost", "weight", o.iou_cost_weight);
  if (const ConfigNode* iou = assigner.find("iou_cost"); iou != nullptr && !iou->is_null()) {
    if (const ConfigNode* mode = iou->find("iou_mode")) {
      o.iou_mode = mode->as_string() == "giou" ? IouMode::kGiou : IouMode::kIou;
    }
  }
  return o;
}

AssignResult match_by_cost(const at::Tensor& cost, int64_t num_queries, int64_t num_gts) {
  const auto empty = torch::empty({0}, torch::kLong);
  if (num_queries == 0 || num_gts == 0) {
    return make_assign_result(num_queries, num_gts, empty, empty);
  }
  // The original copies the float32 cost to the CPU; SciPy then solves in float64.
  const at::Tensor host = cost.detach().to(torch::kCPU).to(torch::kDouble).contiguous();
  const std::vector<double> values(host.data_ptr<double>(), host.data_ptr<double>() + host.numel());
  const Assignment matching = linear_sum_assignment(values, num_queries, num_gts);
  return make_assign_result(num_queries, num_gts, torch::tensor(matching.rows, torch::kLong),
                            torch::tensor(matching.cols, torch::kLong));
}

at::Tensor HungarianAssigner::cost(const at::Tensor& bbox_pred, const at::Tensor& cls_logits,
                                   const at::Tensor& gt_boxes, const at::Tensor& gt_labels,
                                   double img_h, double img_w) const {
  const at::Tensor factor =
      torch::tensor({img_w, img_h, img_w, img_h}, gt_boxes.options()).unsqueeze(0);
  const at::Tensor cls = focal_loss_cost(cls_logits, gt_labels, options_.cls_cost);
  const at::Tensor reg =
      bbox_l1_cost(bbox_pred, gt_boxes / factor, options_.reg_box_format, options_.reg_cost_weight);
  const at::Tensor iou = iou_cost(bbox_cxcywh_to_xyxy(bbox_pred) * factor, gt_boxes,
                                  options_.iou_mode, options_.iou_cost_weight);
  return cls + reg + iou;
}

AssignResult HungarianAssigner::assign(const at::Tensor& bbox_pred, const at::Tensor& cls_logits,
                                       const at::Tensor& gt_boxes, const at::Tensor& gt_labels,
                                       double img_h, double img_w) const {
  const int64_t num_queries = bbox_pred.size(0);
  const int64_t num_gts = gt_boxes.size(0);
  if (num_queries == 0 || num_gts == 0) return match_by_cost({}, num_queries, num_gts);
  torch::NoGradGuard no_grad;
  return match_by_cost(cost(bbox_pred, cls_logits, gt_boxes, gt_labels, img_h, img_w), num_queries,
                       num_gts);
}

}  // namespace olv2
