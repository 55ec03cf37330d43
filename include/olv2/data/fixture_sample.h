#pragma once
// Batches read from the model fixtures' `.pt` input files, and rescaled as the original's benchmark
// does.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "olv2/data/batch.h"

namespace olv2 {

// Frames in the model fixtures' input format (a `.pt` dict: img [B, N, 3, H, W], lidar2img,
// img_shape, pad_shape, scale_factor, optional can_bus, and, when `with_gt`, each frame's
// gt_lc, gt_lc_labels, gt_te, gt_te_labels, gt_topology_lclc, gt_topology_lcte as
// `<key>.<b>`, or as `<key>` in a one-frame file) as one batch: the frames `frames` names, in
// that order, or all of them when it is empty. A missing key, a tensor of the wrong rank or a
// frame out of range is an input error naming the file and key.
Batch read_fixture_batch(const std::filesystem::path& file, bool with_gt,
                         const std::vector<int64_t>& frames = {});

// The resolution change of the original's benchmark (`bench_original.py --scale`): the valid
// image region resized bilinearly (half-pixel centres) to `scale` times its size and padded to
// `scale` times the padded size; img_shape and pad_shape times `scale`; lidar2img's first two
// rows (the pixel rows of K) times `scale`; traffic-element boxes times `scale`; scale_factor
// unchanged. Every camera must have the same valid size, as in the fixtures.
Batch scale_fixture_sample(const Batch& batch, int64_t scale);

}  // namespace olv2
