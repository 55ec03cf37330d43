#include "olv2/visualization/frame_figure.h"

#include <cstdio>
#include <map>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "olv2/data/image_io.h"
#include "olv2/evaluation/evaluator.h"
#include "olv2/evaluation/ground_truth.h"
#include "olv2/util/error.h"
#include "olv2/visualization/drawing.h"
#include "olv2/visualization/palette.h"

namespace olv2 {

namespace {

constexpr int kTitleHeight = 56;
constexpr int kLegendWidth = 230;
constexpr int kGap = 10;

std::string scores_line(const Frame& frame, const FramePrediction& prediction) {
  const EvaluationMetrics m = evaluate({ground_truth_from_frame(frame)}, {prediction});
  std::string line;
  for (const auto& [name, value] : headline_metrics(m)) {
    if (name == "F-Score" || name == "mAP" || name == "AP_ls" || name == "AP_ped" ||
        name == "TOP_lsls") {
      continue;
    }
    char part[48];
    std::snprintf(part, sizeof(part), "%s%s %.3f", line.empty() ? "" : "   ", name.c_str(), value);
    line += part;
  }
  return line;
}

std::string counts_line(const FigureContent& content, float threshold) {
  const Frame& frame = *content.frame;
  const bool segments = frame.format == FrameFormat::kLaneSegment;
  const char* lanes = segments ? "lane segments" : "lanes";
  const auto count = [](size_t n, const char* what) { return std::to_string(n) + " " + what; };
  const auto shown = [](size_t n, size_t of, const char* what) {
    return std::to_string(n) + " of " + std::to_string(of) + " " + what;
  };
  std::string truth = "ground truth: " + count(ground_truth_centerlines(frame).size(), lanes) +
                      (segments ? ", " + count(frame.areas.size(), "areas") : "") + ", " +
                      count(frame.num_traffic_elements(), "traffic elements");
  if (!frame.has_annotation) truth = "no ground truth (unannotated frame)";
  if (content.prediction == nullptr) return truth;
  char score[48];
  std::snprintf(score, sizeof(score), "   predicted (score >= %.2f): ", threshold);
  const FramePrediction& prediction = *content.prediction;
  return truth + score + shown(content.shown_lanes.size(), prediction.lanes.size(), lanes) +
         (segments ? ", " + shown(content.shown_areas.size(), prediction.areas.size(), "areas")
                   : "") +
         ", " +
         shown(content.shown_elements.size(), prediction.traffic_elements.size(), "elements");
}

void draw_legend(cv::Mat& legend, FrameFormat format) {
  int y = 22;
  const auto sample_line = [&](const cv::Scalar& colour, bool dashed, const std::string& label) {
    const std::vector<cv::Point2d> line = {{10, y - 4.0}, {44, y - 4.0}};
    if (dashed) {
      drawing::dashed_polyline(legend, line, colour, 2);
    } else {
      drawing::polyline(legend, line, colour, 3);
    }
    drawing::text(legend, label, {52, y}, palette::text(), 0.42);
    y += 20;
  };
  drawing::text(legend, "solid: ground truth", {10, y}, palette::text(), 0.42);
  y += 18;
  drawing::text(legend, "dashed: prediction", {10, y}, palette::text(), 0.42);
  y += 24;
  sample_line(palette::ground_truth_lane(), false, "lane centerline");
  sample_line(palette::predicted_lane(), true, "predicted lane");
  sample_line(palette::ground_truth_lane_edge(), false, "lane -> lane");
  sample_line(palette::predicted_lane_edge(), true, "predicted lane -> lane");
  if (format == FrameFormat::kLaneSegment) {
    sample_line(palette::ground_truth_boundary(), false, "boundary (its line type)");
    sample_line(palette::area(kPedestrianCrossing, false), false, "pedestrian crossing");
    sample_line(palette::area(kRoadBoundary, false), false, "road boundary");
  }
  y += 8;
  drawing::text(legend, "traffic elements", {10, y}, palette::text(), 0.42);
  y += 20;
  for (size_t a = 0; a < kTrafficElementAttributeNames.size(); ++a) {
    const cv::Scalar colour = palette::traffic_element(static_cast<int>(a));
    cv::rectangle(legend, cv::Rect(12, y - 11, 28, 12), colour, 2, cv::LINE_AA);
    drawing::text(legend, std::to_string(a) + " " + kTrafficElementAttributeNames[a], {52, y},
                  palette::text(), 0.42);
    y += 20;
  }
  drawing::text(legend, "thin lines: element -> lane", {10, y + 6}, palette::text(), 0.38);
}

}  // namespace

FrameFigure draw_frame_figure(const Frame& frame, const cv::Mat& front_image,
                              const FramePrediction* prediction, const FigureOptions& options) {
  if (frame.cameras.empty()) {
    throw input_error("frame " + frame.segment_id + "/" + frame.timestamp + ": no cameras");
  }
  if (front_image.empty()) {
    throw input_error("frame " + frame.segment_id + "/" + frame.timestamp +
                      ": empty front camera image");
  }
  const FigureContent content = figure_content(frame, prediction, options.score_threshold);
  BevView bev(options.range, options.panel_height);
  FrontView front(frame.cameras[0], front_image.size(), options.panel_height);

  const cv::Rect bev_rect(kGap, kTitleHeight, bev.size().width, bev.size().height);
  const cv::Rect front_rect(bev_rect.br().x + kGap, kTitleHeight, front.size().width,
                            front.size().height);
  const cv::Rect legend_rect(front_rect.br().x + kGap, kTitleHeight, kLegendWidth,
                             options.panel_height);
  cv::Mat image(kTitleHeight + options.panel_height + kGap, legend_rect.br().x + kGap, CV_8UC3,
                palette::background());
  draw_bev_panel(content, bev).copyTo(image(bev_rect));
  draw_front_panel(content, front_image, front).copyTo(image(front_rect));
  cv::Mat legend = image(legend_rect);
  draw_legend(legend, frame.format);

  const std::string id = frame.split + "/" + frame.segment_id + "/" + frame.timestamp;
  drawing::text(image, id, {kGap, 22}, palette::text(), 0.6, 2);
  if (prediction != nullptr && frame.has_annotation) {
    drawing::text(image, scores_line(frame, *prediction), {kGap + 430, 22}, palette::text(), 0.55);
  }
  drawing::text(image, counts_line(content, options.score_threshold), {kGap, 46}, palette::text(),
                0.45);
  return {image, bev_rect, front_rect, bev, front};
}

std::vector<std::filesystem::path> write_frame_figures(
    const FrameIndex& index, const std::vector<FramePrediction>* predictions, size_t count,
    const FigureOptions& options, const std::filesystem::path& out_dir) {
  std::map<std::string, const FramePrediction*> by_key;
  if (predictions != nullptr) {
    for (const FramePrediction& prediction : *predictions)
      by_key[prediction.frame.key()] = &prediction;
  }
  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  if (error) {
    throw input_error("figures " + out_dir.string() +
                      ": cannot create the folder: " + error.message());
  }
  std::vector<std::filesystem::path> written;
  for (size_t i = 0; i < std::min(count, index.size()); ++i) {
    const FrameKey& key = index.key(i);
    const Frame frame = index.load(i);
    const FramePrediction* prediction = nullptr;
    if (predictions != nullptr) {
      const std::string frame_key = FrameId{key.split, key.segment_id, key.timestamp}.key();
      const auto found = by_key.find(frame_key);
      if (found == by_key.end()) {
        throw input_error("predictions: no frame " + frame_key + " among " +
                          std::to_string(predictions->size()) + " predicted frames");
      }
      prediction = found->second;
    }
    const cv::Mat image =
        decode_image((index.data_root() / frame.cameras.at(0).image_path).string());
    const FrameFigure figure = draw_frame_figure(frame, image, prediction, options);
    const std::filesystem::path path = out_dir / (key.segment_id + "_" + key.timestamp + ".png");
    if (!cv::imwrite(path.string(), figure.image)) {
      throw runtime_error("figure " + path.string() + ": cannot write the PNG");
    }
    written.push_back(path);
  }
  return written;
}

}  // namespace olv2
