#pragma once
#include <opencv2/core/types.hpp>

namespace olv2::palette {

// The colours of every figure (BGR), the same for the same thing in every frame. Ground truth is
// drawn solid, predictions dashed.
const cv::Scalar& ground_truth_lane();
const cv::Scalar& predicted_lane();
const cv::Scalar& ground_truth_lane_edge();  // lane -> lane topology
const cv::Scalar& predicted_lane_edge();
// A traffic element and its lane links, by attribute (0..12; anything else: unknown's colour).
const cv::Scalar& traffic_element(int attribute);

const cv::Scalar& background();
const cv::Scalar& grid();
const cv::Scalar& range();  // the config's BEV range
const cv::Scalar& ego();
const cv::Scalar& text();

}  // namespace olv2::palette
