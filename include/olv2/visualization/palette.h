#pragma once
// The colours of every figure, the same for the same thing in every frame.
#include <opencv2/core/types.hpp>

namespace olv2::palette {

// The colours of every figure (BGR), the same for the same thing in every frame. Ground truth is
// drawn solid, predictions dashed.
cv::Scalar ground_truth_lane();
cv::Scalar predicted_lane();
cv::Scalar ground_truth_lane_edge();  // lane -> lane topology
cv::Scalar predicted_lane_edge();
cv::Scalar ground_truth_boundary();  // a lane segment's left and right lines (v2.x)
cv::Scalar predicted_boundary();
// An area (v2.x) by category: 1 pedestrian crossing, 2 road boundary.
cv::Scalar area(int category, bool predicted);
// A traffic element and its lane links, by attribute (0..12; anything else: unknown's colour).
cv::Scalar traffic_element(int attribute);

cv::Scalar background();
cv::Scalar grid();
cv::Scalar range();  // the config's BEV range
cv::Scalar ego();
cv::Scalar text();

}  // namespace olv2::palette
