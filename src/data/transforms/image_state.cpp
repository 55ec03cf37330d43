#include "olv2/data/transforms/image_state.h"

#include <opencv2/core.hpp>

#include "olv2/util/error.h"

namespace olv2 {

void ensure_float_images(PipelineData& data) {
  if (data.images_float) return;
  for (cv::Mat& image : data.images) {
    cv::Mat converted;
    image.convertTo(converted, CV_32F);
    image = converted;
  }
  data.images_float = true;
}

void apply_channel_order(PipelineData& data) {
  for (size_t i = 0; i < data.channel_order.size(); ++i) {
    const std::array<int, 3>& order = data.channel_order[i];
    if (order == std::array<int, 3>{0, 1, 2}) continue;
    cv::Mat swapped(data.images[i].size(), data.images[i].type());
    const int from_to[] = {order[0], 0, order[1], 1, order[2], 2};
    cv::mixChannels(&data.images[i], 1, &swapped, 1, from_to, 3);
    data.images[i] = swapped;
  }
  data.channel_order.clear();
}

void require_unpadded(const PipelineData& data, const char* transform) {
  if (!data.pad_shape.empty()) {
    throw input_error(std::string("pipeline: ") + transform +
                      " changes pixels and must come before CustomPadMultiViewImage");
  }
}

}  // namespace olv2
