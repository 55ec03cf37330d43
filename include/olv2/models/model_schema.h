#pragma once
#include "olv2/config/schema.h"

namespace olv2 {

// The `model` section, by `type`: `Baseline` (below) or `BaselineLarge` (baseline_large_schema.h).
// Baseline: the keys of the original Python config (img_backbone,
// img_neck, img_view_transformer, lc_head, te_head, lclc_head, lcte_head, each with its own
// `type`), plus `checkpoint: [stage names]` (activation checkpointing of whole stages).
Schema model_schema();

}  // namespace olv2
