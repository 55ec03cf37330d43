#include "olv2/models/heads/detr_head_losses.h"

#include <algorithm>

namespace olv2 {

DetrAverageFactors detr_average_factors(int64_t num_pos, bool sync_cls_avg_factor,
                                        const std::function<double(double)>& reduce_mean) {
  const auto mean_over_ranks = [&](double value) {
    return reduce_mean ? reduce_mean(value) : value;
  };
  const auto positives = static_cast<double>(num_pos);
  DetrAverageFactors factors{};
  factors.cls = std::max(sync_cls_avg_factor ? mean_over_ranks(positives) : positives, 1.0);
  factors.regression = std::max(mean_over_ranks(positives), 1.0);
  return factors;
}

void declare_detr_loss_keys(Schema& head) {
  head.required("loss_cls", loss_registry().schema())
      .optional("loss_bbox", loss_registry().schema())
      .optional("loss_iou", loss_registry().schema());
}

void read_detr_losses(const ConfigNode& head, PredictionKind regressed,
                      std::shared_ptr<const Loss>& loss_cls, std::shared_ptr<const Loss>& loss_bbox,
                      std::shared_ptr<const Loss>* loss_iou) {
  const Registry<Loss>& losses = loss_registry();
  loss_cls = read_for_kind(losses, head, "loss_cls", PredictionKind::kClassScores, loss_cls);
  loss_bbox = read_for_kind(losses, head, "loss_bbox", regressed, loss_bbox);
  if (loss_iou != nullptr) {
    *loss_iou = read_for_kind(losses, head, "loss_iou", PredictionKind::kBoxes, *loss_iou);
  }
}

}  // namespace olv2
