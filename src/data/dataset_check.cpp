#include "olv2/data/dataset_check.h"

#include <chrono>
#include <sstream>

#include "olv2/data/image_io.h"
#include "olv2/util/elapsed.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

void check_images(const Frame& frame, const std::string& data_root,
                  const DatasetCheckOptions& options, DatasetCheckReport& report) {
  for (const CameraInfo& camera : frame.cameras) {
    const std::string path = data_root + "/" + camera.image_path;
    ++report.images;
    const ImageFileInfo info = inspect_image_file(path);
    if (!info.exists) {
      report.add_problem("missing image", "image " + path + ": file not found",
                         options.examples_per_kind);
      continue;
    }
    if (!info.regular || info.bytes == 0) {
      report.add_problem("unreadable image", "image " + path + ": not a readable, non-empty file",
                         options.examples_per_kind);
      continue;
    }
    if (!info.complete) {
      report.add_problem("truncated JPEG",
                         "image " + path + ": no end-of-image marker (incomplete download?)",
                         options.examples_per_kind);
      continue;
    }
    int width = info.width;
    int height = info.height;
    if (options.decode) {
      try {
        const cv::Mat image = decode_image(path);
        width = image.cols;
        height = image.rows;
      } catch (const Error& e) {
        report.add_problem("undecodable image", e.what(), options.examples_per_kind);
        continue;
      }
    }
    const std::string size =
        width > 0 ? std::to_string(width) + "x" + std::to_string(height) : "unknown";
    ++report.image_sizes[camera.name][size];
  }
}

}  // namespace

int64_t DatasetCheckReport::problem_count() const {
  int64_t total = 0;
  for (const auto& [kind, count] : problems) total += count;
  return total;
}

void DatasetCheckReport::add_problem(const std::string& kind, const std::string& message,
                                     size_t keep) {
  ++problems[kind];
  std::vector<std::string>& kept = examples[kind];
  if (kept.size() < keep) kept.push_back(message);
}

DatasetCheckReport check_dataset(const FrameIndex& index, const DatasetCheckOptions& options,
                                 const std::function<void(size_t, size_t)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  DatasetCheckReport report;
  report.split = index.split();
  report.format = frame_format(index.options().kind);
  const std::string data_root = index.data_root().string();
  for (size_t i = 0; i < index.size(); ++i) {
    ++report.frames;
    const std::filesystem::path info_path = index.info_path(i);
    std::error_code ec;
    if (!std::filesystem::exists(info_path, ec)) {
      report.add_problem("missing frame",
                         "collection " + index.collection_file().string() + " lists " +
                             info_path.string() + ", which does not exist",
                         options.examples_per_kind);
    } else {
      try {
        const Frame frame = index.load(i);
        report.annotated_frames += frame.has_annotation ? 1 : 0;
        report.lanes += static_cast<int64_t>(frame.num_lanes());
        report.lane_segments += static_cast<int64_t>(frame.lane_segments.size());
        for (const Area& area : frame.areas) {
          ++(area.category == kPedestrianCrossing ? report.pedestrian_crossings
                                                  : report.road_boundaries);
        }
        report.traffic_elements += static_cast<int64_t>(frame.num_traffic_elements());
        ++report.cameras_per_frame[static_cast<int64_t>(frame.cameras.size())];
        check_images(frame, data_root, options, report);
      } catch (const Error& e) {
        report.add_problem("invalid frame", e.what(), options.examples_per_kind);
      }
    }
    if (progress) progress(i + 1, index.size());
  }
  report.seconds = seconds_since(start);
  return report;
}

std::string format_check_report(const DatasetCheckReport& r) {
  std::ostringstream out;
  out << "split " << r.split << ": " << r.frames << " frames (" << r.annotated_frames
      << " annotated), ";
  if (r.format == FrameFormat::kLaneSegment) {
    out << r.lane_segments << " lane segments, " << r.pedestrian_crossings
        << " pedestrian crossings, " << r.road_boundaries << " road boundaries, ";
  } else {
    out << r.lanes << " lane centerlines, ";
  }
  out << r.traffic_elements << " traffic elements, " << r.images << " images";
  out << "\n  cameras per frame:";
  for (const auto& [cameras, frames] : r.cameras_per_frame)
    out << " " << cameras << " (" << frames << " frames)";
  for (const auto& [camera, sizes] : r.image_sizes) {
    out << "\n  " << camera << ":";
    for (const auto& [size, count] : sizes) out << " " << size << " (" << count << ")";
  }
  if (r.problems.empty()) {
    out << "\n  problems: none";
  } else {
    out << "\n  problems: " << r.problem_count();
    for (const auto& [kind, count] : r.problems) {
      out << "\n    " << kind << ": " << count;
      for (const std::string& example : r.examples.at(kind)) out << "\n      " << example;
      const size_t shown = r.examples.at(kind).size();
      if (static_cast<int64_t>(shown) < count)
        out << "\n      ... and " << count - shown << " more";
    }
  }
  out << "\n  time: " << r.seconds << " s";
  return out.str();
}

}  // namespace olv2
