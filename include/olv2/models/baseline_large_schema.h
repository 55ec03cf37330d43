#pragma once
#include "olv2/config/schema.h"

namespace olv2 {

// The `model` section of `type: BaselineLarge`: the keys of the original baseline_large.py
// (img_backbone, img_neck, bev_constructor, bbox_head, pts_bbox_head, lclc_head, lcte_head,
// bbox_train_cfg, train_cfg.pts) with their nested transformer configs, plus
// `checkpoint: [extract_feat, bev_constructor]`.
Schema baseline_large_schema();

}  // namespace olv2
