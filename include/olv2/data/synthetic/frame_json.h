#pragma once
// Synthetic frames written as OpenLane-V2 info JSON, with their image paths.
#include <cstdint>
#include <string>
#include <vector>

#include "olv2/data/frame.h"
#include "olv2/data/synthetic/camera_rig.h"
#include "olv2/data/synthetic/scene.h"

namespace olv2::synthetic {

// Where a frame lives: `<split>/<segment_id>/info/<timestamp>.json`.
struct SyntheticFrameId {
  std::string split;
  std::string segment_id;  // 5 digits
  int64_t timestamp = 0;   // 18 digits
};

// Relative image path of `camera_name` for a frame, as written in its `sensor`
// record.
std::string synthetic_image_path(const SyntheticFrameId& id, const std::string& camera_name);

// The frame's info JSON in the OpenLane-V2 layout and key order (spec §1.2) of `format`: the v1.x
// annotation (lane centerlines) or the v2.x one (lane segments, areas; the `-ls.json` files);
// without `annotation` when not `annotated`, as the test split's frames.
std::string synthetic_frame_json(const SyntheticFrameId& id,
                                 const std::vector<SyntheticCamera>& cameras,
                                 const SyntheticScene& scene, bool annotated = true,
                                 FrameFormat format = FrameFormat::kLaneCenterline);

}  // namespace olv2::synthetic
