#pragma once
// The state a data pipeline carries from transform to transform, the original's `results` dict,
// and how a frame becomes it.
#include <array>
#include <cstdint>
#include <opencv2/core/mat.hpp>
#include <string>
#include <vector>

#include "olv2/data/camera_matrices.h"
#include "olv2/data/frame.h"
#include "olv2/data/sample.h"

namespace olv2 {

// What the transforms pass along (the original's `results` dict): built from a
// Frame as the original dataset's get_data_info / get_ann_info do, then changed
// by each transform in turn.
struct PipelineData {
  std::string frame_name;  // "<split>/<segment>/info/<timestamp>.json", for errors
  FrameFormat frame_format = FrameFormat::kLaneCenterline;
  std::string scene_token;
  std::string sample_idx;
  std::string data_root;
  std::vector<std::string> camera_names;
  std::vector<std::string> img_paths;  // data_root + "/" + image_path

  // Images, HWC, one per camera. After loading they may still be 8-bit BGR (the
  // float conversion is deferred so that normalisation can fuse with it);
  // `images_float` says which.
  std::vector<cv::Mat> images;
  bool images_float = false;
  bool images_rgb = false;  // channel order after NormalizeMultiviewImage(to_rgb)
  std::vector<std::array<int64_t, 3>> img_shape;  // (H, W, C) per camera
  std::vector<std::array<int64_t, 3>> ori_shape;
  // Padding is recorded here and written by the format bundle (it fills a
  // zeroed tensor of this size), which saves a full pass over every image.
  std::vector<std::array<int64_t, 3>> pad_shape;
  float pad_val = 0;
  std::array<float, 4> scale_factor{1.f, 1.f, 1.f, 1.f};
  // Per camera (x, y) offset of a crop (CropFrontViewImageForAv2); empty when none was made.
  std::vector<std::array<int64_t, 2>> crop_shape;
  // Channel permutation drawn by the photometric distortion, applied by the
  // format bundle: output channel c takes input channel channel_order[c].
  std::vector<std::array<int, 3>> channel_order;
  // Where the format bundle writes the images when it is a float tensor of their
  // [N_cam, 3, H, W]: the loader's slice of the batch it assembles, so that
  // collate copies nothing. Undefined, or other sizes: a new tensor.
  at::Tensor images_into;

  // Geometry (float64), per camera.
  std::vector<Matrix4d> lidar2img;
  std::vector<Matrix4d> lidar2cam;
  std::vector<Matrix4d> cam_intrinsic;          // K in a 4x4 identity
  std::vector<std::array<double, 9>> rots;      // R^T
  std::vector<std::array<double, 3>> trans;     // -t
  std::vector<std::array<double, 9>> cam2imgs;  // K
  std::array<double, 18> can_bus{};

  // Ground truth (get_ann_info), before formatting; none for a frame without `annotation`.
  bool annotated = false;
  int64_t num_lanes = 0;
  int64_t lane_points = 0;   // P, or 15 after CustomParameterizeLane
  std::vector<float> gt_lc;  // [num_lanes, lane_points, 3] (or [num_lanes, 15])
  bool gt_lc_parameterized = false;
  std::vector<float> gt_te;  // [k, 4]
  std::vector<int64_t> gt_te_labels;
  std::vector<int8_t> gt_topology_lclc;  // lane segments: [n_segments, n_segments]
  std::vector<int8_t> gt_topology_lcte;

  // Lane segments (v2.x frames): each segment's centerline, left and right boundary ([k, 3]
  // float32 each, as the collection gives them), each one's label (0 lane segment, 1 crossing)
  // and boundary line types; LoadAnnotations3DLaneSegment appends the pedestrian crossings of
  // `gt_areas` as segments of label 1, as LaneSegNet's get_ann_info does. None for v1.x frames.
  // LaneSegmentParameterize3D turns the lines into `gt_lc`.
  std::vector<Area> gt_areas;
  std::vector<std::array<std::vector<float>, 3>> gt_lane_segment_lines;
  std::vector<int64_t> gt_lane_labels;
  std::vector<int64_t> gt_lane_left_type;
  std::vector<int64_t> gt_lane_right_type;
  // The Map Element Bucket's areas (LoadAnnotations3DLaneSegment with `with_area`), instead of
  // crossings among the lane segments: each area resampled to `area_points` points along its
  // length, [n_a, area_points, 3] float64, and its label (category - 1). `area_points` is 0 when
  // areas are not loaded.
  int64_t area_points = 0;
  std::vector<double> gt_area_points;
  std::vector<int64_t> gt_area_labels;
  // GenerateLaneSegmentMask's instance masks, [num_lanes, mask_h, mask_w] 0/1.
  std::vector<uint8_t> gt_instance_masks;
  int64_t mask_h = 0;
  int64_t mask_w = 0;

  // Set by the format bundle and Collect.
  Sample sample;
  bool formatted = false;
};

// Builds the pipeline input of a frame as the original dataset does (camera 0
// must be the front view). Throws an input error naming the frame otherwise.
PipelineData make_pipeline_data(const Frame& frame, const std::string& data_root);

// LaneSegNet's `ped2lane_segment`: a pedestrian crossing's 5 points (closing on the first) as a
// lane segment whose left boundary is points 0 -> 1 and right boundary points 3 -> 2, or
// 2 -> 3 and 1 -> 0 when the heading of 0 -> 1 (in degrees, computed in float32 as the
// collection's points are) is below -45 or above 135; the centerline is their mean. Lines
// [2, 3] float32 in the order centerline, left, right.
std::array<std::vector<float>, 3> ped_crossing_as_lane_segment(const Area& crossing);

// The original's can_bus for a pose (with its quirks, spec §1.4).
std::array<double, 18> compute_can_bus(const Pose& pose);

}  // namespace olv2
