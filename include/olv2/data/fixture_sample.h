#pragma once
// Batches read from the model fixtures' `.pt` input files, and rescaled as the original's benchmark
// does.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "olv2/data/batch.h"

namespace olv2 {

// Frames as the original model's forward_train receives them, a `.pt` dict (docs/parity.md): `img`
// [B, queue, N, 3, H, W] with a queue of one frame (or [B, N, 3, H, W]); the img_metas fields
// as tensors, `lidar2img` [B, N, 4, 4], `img_shape` and `pad_shape` [B, N, 3], `scale_factor`
// [B, 4], optional `can_bus` [B, 18] (zeros without), `crop_shape` [B, N, 2] and
// `lidar2global_rotation` [B, 3, 3] (checked; the first-frame path does not read it); and, when
// `with_gt`, each frame's ground truth under forward_train's argument names, `gt_lanes_3d`,
// `gt_lane_labels_3d`, `gt_bboxes`, `gt_labels`, `gt_lane_adj`, `gt_lane_lcte_adj` (or the older
// fixtures' `gt_lc`, `gt_lc_labels`, `gt_te`, `gt_te_labels`, `gt_topology_lclc`,
// `gt_topology_lcte`), as `<key>.<b>`, or as `<key>` in a one-frame file; a lane-segment frame
// (LaneSegNet's forward_train) has `gt_lane_left_type`, `gt_lane_right_type` and
// `gt_instance_masks` too, and its traffic-element keys may be absent; the Map Element Bucket's
// has `gt_lane_lste_adj` (read as the lcte adjacency) and its areas `gt_areas_3d` [n_a, P, 3]
// with `gt_area_labels_3d`. Read as given: nothing
// is changed on the way (no can_bus zeroed). One batch of the frames `frames` names, in that
// order, or of all of them when it is empty. A missing key, a tensor of the wrong rank or a
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
