#pragma once
// A frame's picture, the bird's-eye and front-camera panels with title and legend, and writing them
// for a split.
#include <cstddef>
#include <filesystem>
#include <opencv2/core/mat.hpp>
#include <string>
#include <vector>

#include "olv2/data/frame_reader.h"
#include "olv2/visualization/bev_panel.h"
#include "olv2/visualization/front_panel.h"

namespace olv2 {

struct FigureOptions {
  BevArea range;
  float score_threshold = 0.3f;  // predictions scoring less are not drawn
  int panel_height = 800;        // pixels of both panels, whatever the image size
};

// One frame's picture: a title (frame id, and with a prediction its scores: OLS, DET_l, DET_t,
// TOP_ll, TOP_lt of this frame alone), the bird's-eye panel, the front-camera panel and a legend.
// The rectangles and views say where each panel's pixels lie in `image`.
struct FrameFigure {
  cv::Mat image;  // 8-bit BGR
  cv::Rect bev_rect;
  cv::Rect front_rect;
  BevView bev;
  FrontView front;
};

// `front_image` is the frame's front camera image as decoded from disk (any size).
FrameFigure draw_frame_figure(const Frame& frame, const cv::Mat& front_image,
                              const FramePrediction* prediction, const FigureOptions& options);

// Draws the first `count` frames of `index` (all when fewer) with their predictions from
// `predictions` (looked up by frame; null: ground truth only; a frame missing from them is an
// input error naming it) into `out_dir/<segment>_<timestamp>.png`, creating the folder. Returns
// the files written, in frame order.
std::vector<std::filesystem::path> write_frame_figures(
    const FrameIndex& index, const std::vector<FramePrediction>* predictions, size_t count,
    const FigureOptions& options, const std::filesystem::path& out_dir);

}  // namespace olv2
