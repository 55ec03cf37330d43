#include "olv2/data/transforms/crop_front_view.h"

#include <algorithm>
#include <vector>

#include "olv2/data/camera_matrices.h"
#include "olv2/data/transforms/image_state.h"
#include "olv2/util/error.h"

namespace olv2 {

std::shared_ptr<const Transform> CropFrontView::from_config(const ConfigNode& node) {
  std::array<int64_t, 2> crop_h{356, 1906};
  if (const ConfigNode* rows = node.find("crop_h")) {
    const std::vector<int64_t> values = rows->as_vector<int64_t>();
    if (values.size() != 2 || values[0] < 0 || values[1] <= values[0]) {
      throw input_error(rows->where() + ": expected [first row, end row] with 0 <= first < end");
    }
    crop_h = {values[0], values[1]};
  }
  return std::make_shared<CropFrontView>(crop_h);
}

Schema CropFrontView::schema() {
  return Schema::map()
      .required("type", Schema::string())
      .optional("crop_h", Schema::sequence(Schema::integer()));
}

void CropFrontView::apply(PipelineData& data, std::mt19937_64& /*rng*/) const {
  require_unpadded(data, type());
  if (data.images.empty())
    throw input_error("pipeline: CropFrontViewImageForAv2 needs loaded images");
  data.ori_shape = data.img_shape;
  cv::Mat& front = data.images[0];
  const int first = static_cast<int>(std::min<int64_t>(crop_h_[0], front.rows));
  const int end = static_cast<int>(std::min<int64_t>(crop_h_[1], front.rows));
  if (end <= first) {
    throw input_error("frame " + data.frame_name + ": CropFrontViewImageForAv2 keeps rows [" +
                      std::to_string(crop_h_[0]) + ", " + std::to_string(crop_h_[1]) +
                      ") of a front image " + std::to_string(front.rows) +
                      " rows high: nothing is left (set crop_h for this image size)");
  }
  front = front.rowRange(first, end).clone();
  data.img_shape[0][0] = front.rows;
  data.crop_shape.assign(data.images.size(), {0, 0});
  data.crop_shape[0] = {0, crop_h_[0]};

  // The principal point moves up with the kept rows; the projection follows from it.
  const double shift = static_cast<double>(crop_h_[0]);
  data.cam2imgs[0][5] -= shift;
  data.cam_intrinsic[0][6] -= shift;
  data.lidar2img[0] = multiply4(data.cam_intrinsic[0], data.lidar2cam[0]);

  const int64_t boxes = static_cast<int64_t>(data.gt_te.size()) / 4;
  std::vector<int64_t> kept;
  std::vector<float> kept_boxes;
  for (int64_t b = 0; b < boxes; ++b) {
    float* box = data.gt_te.data() + b * 4;
    box[1] -= static_cast<float>(crop_h_[0]);
    box[3] -= static_cast<float>(crop_h_[0]);
    if (box[3] > 0) {
      kept.push_back(b);
      kept_boxes.insert(kept_boxes.end(), box, box + 4);
    }
  }
  if (static_cast<int64_t>(kept.size()) == boxes) return;
  std::vector<int64_t> labels;
  for (int64_t b : kept) labels.push_back(data.gt_te_labels[static_cast<size_t>(b)]);
  std::vector<int8_t> lcte;
  // The lanes the relations cover: every centerline, or a frame's lane segments only.
  const int64_t related =
      boxes == 0 ? 0 : static_cast<int64_t>(data.gt_topology_lcte.size()) / boxes;
  for (int64_t lane = 0; lane < related; ++lane) {
    for (int64_t b : kept)
      lcte.push_back(data.gt_topology_lcte[static_cast<size_t>(lane * boxes + b)]);
  }
  data.gt_te = std::move(kept_boxes);
  data.gt_te_labels = std::move(labels);
  data.gt_topology_lcte = std::move(lcte);
}

}  // namespace olv2
