#include "olv2/data/transforms/resize_front_view.h"

#include <opencv2/imgproc.hpp>

#include "olv2/data/transforms/image_state.h"
#include "olv2/util/error.h"

namespace olv2 {

std::shared_ptr<const Transform> ResizeFrontView::from_config(const ConfigNode& /*node*/) {
  return std::make_shared<ResizeFrontView>();
}

Schema ResizeFrontView::schema() { return Schema::map().required("type", Schema::string()); }

void ResizeFrontView::apply(PipelineData& data, std::mt19937_64& /*rng*/) const {
  require_unpadded(data, type());
  if (data.images.empty()) throw input_error("pipeline: ResizeFrontView needs loaded images");
  if (data.img_paths[0].find("ring_front_center") == std::string::npos) {
    throw input_error("frame " + data.frame_name + ": ResizeFrontView expects camera 0 to be " +
                      "ring_front_center, got image " + data.img_paths[0]);
  }
  ensure_float_images(data);
  cv::Mat& front = data.images[0];
  const int h = front.rows;
  const int w = front.cols;
  // Original behaviour: the new size is (width = h, height = w): a stretch
  // (spec §2.5).
  cv::Mat resized;
  cv::resize(front, resized, cv::Size(h, w), 0, 0, cv::INTER_LINEAR);
  front = resized;
  const double w_scale = static_cast<double>(h) / w;
  const double h_scale = static_cast<double>(w) / h;
  data.img_shape[0] = {resized.rows, resized.cols, resized.channels()};
  const float fw = static_cast<float>(w_scale);
  const float fh = static_cast<float>(h_scale);
  data.scale_factor = {fw, fh, fw, fh};
  for (size_t i = 0; i < data.gt_te.size(); ++i) data.gt_te[i] *= data.scale_factor[i % 4];

  // Front projection rebuilt from rots / trans / cam2imgs with the scaled
  // intrinsics.
  std::array<double, 9> K = data.cam2imgs[0];
  for (int c = 0; c < 3; ++c) {
    K[c] *= w_scale;
    K[3 + c] *= h_scale;
  }
  data.cam2imgs[0] = K;
  const Matrix4d K4 = embed_intrinsic(K);
  data.cam_intrinsic[0] = K4;
  // `trans` holds -t; negating it back is exact, so the shift equals the original's sum.
  const std::array<double, 3>& trans = data.trans[0];
  data.lidar2img[0] = multiply4(K4, ego_to_camera(data.rots[0], {-trans[0], -trans[1], -trans[2]}));
}

}  // namespace olv2
