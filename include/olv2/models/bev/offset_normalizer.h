#pragma once
// The per-level divisor that turns BEVFormer's pixel sampling offsets into normalised ones.
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "olv2/models/ops/ms_deform_attn.h"

namespace olv2 {

// (w_l, h_l) of every level as float32 [L, 1, 2]: dividing sampling offsets [..., L, P, 2] by it
// turns pixel offsets into offsets normalised to the level.
at::Tensor level_offset_normalizer(const SpatialShapes& spatial_shapes, const c10::Device& device);

}  // namespace olv2
