#pragma once
// Post-pipeline samples written as `.pth` entries named as the pipeline fixtures, for comparison
// with a reference.
#include <string>
#include <vector>

#include "olv2/data/frame_reader.h"
#include "olv2/data/sample.h"
#include "olv2/util/pth/pth_value.h"

namespace olv2 {

// Appends the post-pipeline tensors of one sample under "<split>.<timestamp>.<name>", with the
// names, shapes and dtypes of the pipeline fixtures (img_s8, img_mean/std/min/max,
// img_full_shape, lidar2img, img_shape, pad_shape, scale_factor, can_bus, and the gt_* tensors
// when the sample has ground truth), so a dump compares directly with a reference.
void append_sample_dump(const Sample& sample, const std::string& split, PthDictItems& out);

// Appends "<split>.sample_order": [frames, 2] int64 (int(segment), int(timestamp)).
void append_sample_order(const std::vector<FrameKey>& keys, const std::string& split,
                         PthDictItems& out);

}  // namespace olv2
