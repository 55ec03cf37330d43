#include "olv2/models/heads/detr_head_losses.h"

#include "olv2/losses/focal_loss.h"
#include "olv2/losses/loss_weight_config.h"

namespace olv2 {

void declare_detr_loss_keys(Schema& head) {
  head.required("loss_cls", FocalLossOptions::schema())
      .optional("loss_bbox", weighted_loss_schema("L1Loss"))
      .optional("loss_iou", weighted_loss_schema("GIoULoss"));
}

}  // namespace olv2
