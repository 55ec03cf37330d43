#include "olv2/data/transforms/random_scale_images.h"

#include <opencv2/imgproc.hpp>

#include "olv2/data/transforms/image_state.h"
#include "olv2/util/error.h"

namespace olv2 {

std::shared_ptr<const Transform> RandomScaleImages::from_config(const ConfigNode& node) {
  const ConfigNode& scales = node.at("scales");
  std::vector<double> values = scales.as_vector<double>();
  if (values.size() != 1 || values[0] <= 0) {
    throw input_error(scales.where() + ": expected one positive scale (the original asserts one)");
  }
  return std::make_shared<RandomScaleImages>(std::move(values));
}

Schema RandomScaleImages::schema() {
  return Schema::map()
      .required("type", Schema::string())
      .required("scales", Schema::sequence(Schema::number()));
}

void RandomScaleImages::apply(PipelineData& data, std::mt19937_64& rng) const {
  require_unpadded(data, type());
  if (data.images.empty()) {
    throw input_error("pipeline: RandomScaleImageMultiViewImage needs loaded images");
  }
  const double scale =
      scales_.size() == 1 ? scales_[0] : scales_[draw_index(rng, static_cast<int>(scales_.size()))];
  ensure_float_images(data);
  for (size_t i = 0; i < data.images.size(); ++i) {
    cv::Mat& image = data.images[i];
    const int width = static_cast<int>(image.cols * scale);
    const int height = static_cast<int>(image.rows * scale);
    cv::Mat resized;
    cv::resize(image, resized, cv::Size(width, height), 0, 0, cv::INTER_LINEAR);
    image = resized;
    data.img_shape[i] = {resized.rows, resized.cols, resized.channels()};
    for (int column = 0; column < 4; ++column) {
      for (Matrix4d* matrix : {&data.lidar2img[i], &data.cam_intrinsic[i]}) {
        (*matrix)[column] *= scale;
        (*matrix)[4 + column] *= scale;
      }
    }
    for (int column = 0; column < 3; ++column) {
      data.cam2imgs[i][column] *= scale;
      data.cam2imgs[i][3 + column] *= scale;
    }
  }
  data.ori_shape = data.img_shape;
  const float factor = static_cast<float>(scale);
  data.scale_factor = {factor, factor, factor, factor};
  for (float& value : data.gt_te) value *= factor;
}

}  // namespace olv2
