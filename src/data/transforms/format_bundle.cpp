#include "olv2/data/transforms/format_bundle.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstring>
#include <opencv2/core.hpp>

#include "olv2/data/transforms/image_state.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

template <typename T>
at::Tensor tensor_from(const std::vector<T>& values, at::IntArrayRef shape, at::ScalarType dtype) {
  at::Tensor out = at::empty(shape, at::TensorOptions().dtype(dtype));
  if (static_cast<int64_t>(values.size()) != out.numel()) {
    throw runtime_error("format bundle: " + std::to_string(values.size()) + " values for a [" +
                        c10::str(shape) + "] tensor");
  }
  if (!values.empty()) std::memcpy(out.data_ptr(), values.data(), values.size() * sizeof(T));
  return out;
}

// Writes an HWC float image into three CHW planes of a padded [3, Hp, Wp]
// block, taking output channel c from input channel order[c], and fills the
// padding with pad_val.
void write_chw(const cv::Mat& image, float* block, int64_t Hp, int64_t Wp,
               const std::array<int, 3>& order, float pad_val) {
  const int H = image.rows;
  const int W = image.cols;
  cv::Mat planes[3];
  for (int c = 0; c < 3; ++c) {
    float* plane = block + c * Hp * Wp;
    planes[c] = cv::Mat(H, W, CV_32F, plane, static_cast<size_t>(Wp) * sizeof(float));
    if (W < Wp)
      for (int y = 0; y < H; ++y) std::fill(plane + y * Wp + W, plane + (y + 1) * Wp, pad_val);
    std::fill(plane + H * Wp, plane + Hp * Wp, pad_val);
  }
  const int from_to[] = {order[0], 0, order[1], 1, order[2], 2};
  cv::mixChannels(&image, 1, planes, 3, from_to, 3);
}

}  // namespace

std::shared_ptr<const Transform> FormatBundle::from_config(const ConfigNode& /*node*/) {
  return std::make_shared<FormatBundle>();
}

// TopoNet's CustomFormatBundle3DLane names the classes: the lanes' one, `centerline`.
Schema FormatBundle::schema() {
  return Schema::map()
      .required("type", Schema::string())
      .optional("class_names", Schema::sequence(Schema::string()));
}

void FormatBundle::apply(PipelineData& data, std::mt19937_64& /*rng*/) const {
  ensure_float_images(data);
  const int64_t n = static_cast<int64_t>(data.images.size());
  if (n == 0) throw input_error("pipeline: CustomDefaultFormatBundle needs loaded images");
  std::vector<std::array<int64_t, 3>> target =
      data.pad_shape.empty() ? data.img_shape : data.pad_shape;
  for (const auto& shape : target) {
    if (shape[0] != target[0][0] || shape[1] != target[0][1]) {
      throw input_error("frame " + data.frame_name +
                        ": camera images differ in size; add "
                        "CustomPadMultiViewImage before the format bundle");
    }
  }
  const int64_t Hp = target[0][0];
  const int64_t Wp = target[0][1];
  const std::vector<int64_t> sizes = {n, 3, Hp, Wp};
  const bool into_batch = data.images_into.defined() && data.images_into.sizes() == sizes &&
                          data.images_into.scalar_type() == at::kFloat;
  const at::Tensor img = into_batch ? std::exchange(data.images_into, at::Tensor())
                                    : at::empty(sizes, at::kFloat);  // [N_cam, 3, H, W]
  float* base = img.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) {
    const cv::Mat& image = data.images[i];
    if (image.channels() != 3)
      throw input_error("image " + data.img_paths[i] + ": expected 3 channels");
    const std::array<int, 3> order = static_cast<size_t>(i) < data.channel_order.size()
                                         ? data.channel_order[i]
                                         : std::array<int, 3>{0, 1, 2};
    write_chw(image, base + i * 3 * Hp * Wp, Hp, Wp, order, data.pad_val);
  }
  data.channel_order.clear();
  data.images.clear();  // the tensor owns the pixels now

  Sample& s = data.sample;
  s.img = img;
  const int64_t lanes = data.num_lanes;
  const int64_t k = static_cast<int64_t>(data.gt_te_labels.size());
  const bool segments = data.frame_format == FrameFormat::kLaneSegment;
  // Lane segments are lines of different lengths until LaneSegmentParameterize3D: a pipeline
  // without it (a test pipeline) bundles no lanes, and Collect refuses to collect them.
  if (!segments || data.gt_lc_parameterized) {
    s.gt_lc = data.gt_lc_parameterized
                  ? tensor_from(data.gt_lc, {lanes, data.lane_points * 3}, at::kFloat)
                  : tensor_from(data.gt_lc, {lanes, data.lane_points, 3}, at::kFloat);
  }
  s.gt_lc_labels = segments ? tensor_from(data.gt_lane_labels, {lanes}, at::kLong)
                            : at::zeros({lanes}, at::kLong);
  // A lane-segment frame's topology covers its lane segments, not the crossings after them.
  const int64_t related = segments ? static_cast<int64_t>(std::count(data.gt_lane_labels.begin(),
                                                                     data.gt_lane_labels.end(), 0))
                                   : lanes;
  s.gt_te = tensor_from(data.gt_te, {k, 4}, at::kFloat);
  s.gt_te_labels = tensor_from(data.gt_te_labels, {k}, at::kLong);
  s.gt_topology_lclc = tensor_from(data.gt_topology_lclc, {related, related}, at::kChar);
  s.gt_topology_lcte = tensor_from(data.gt_topology_lcte, {related, k}, at::kChar);
  if (segments) {
    s.gt_lane_left_type = tensor_from(data.gt_lane_left_type, {lanes}, at::kLong);
    s.gt_lane_right_type = tensor_from(data.gt_lane_right_type, {lanes}, at::kLong);
    if (data.mask_h > 0) {
      s.gt_instance_masks =
          tensor_from(data.gt_instance_masks, {lanes, data.mask_h, data.mask_w}, at::kByte);
    }
  }
  if (data.area_points > 0) {
    const auto areas = static_cast<int64_t>(data.gt_area_labels.size());
    s.gt_areas = tensor_from(data.gt_area_points, {areas, data.area_points, 3}, at::kDouble);
    s.gt_area_labels = tensor_from(data.gt_area_labels, {areas}, at::kLong);
  }
  data.formatted = true;
}

}  // namespace olv2
