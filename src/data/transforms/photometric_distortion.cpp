#include "olv2/data/transforms/photometric_distortion.h"

#include <algorithm>
#include <opencv2/imgproc.hpp>

#include "olv2/data/transforms/image_state.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

std::pair<double, double> range_of(const ConfigNode& node, const char* key,
                                   std::pair<double, double> fallback) {
  const ConfigNode* value = node.find(key);
  if (value == nullptr || value->is_null()) return fallback;
  const std::vector<double> v = value->as_vector<double>();
  if (v.size() != 2 || !(v[0] <= v[1]))
    throw input_error(value->where() + ": expected [lower, upper]");
  return {v[0], v[1]};
}

void scale_add(cv::Mat& image, float add, float scale) {
  for (int y = 0; y < image.rows; ++y) {
    float* p = image.ptr<float>(y);
    const int n = image.cols * 3;
    for (int i = 0; i < n; ++i) p[i] = (p[i] + add) * scale;
  }
}

// Saturation scale and hue shift on an HSV image (H in degrees), wrapped as the
// original.
void adjust_hsv(cv::Mat& hsv, const PhotoMetricDistortion::Draw& draw) {
  const float s_scale = draw.saturation ? draw.saturation_scale : 1.0f;
  for (int y = 0; y < hsv.rows; ++y) {
    float* p = hsv.ptr<float>(y);
    for (int x = 0; x < hsv.cols; ++x, p += 3) {
      if (draw.saturation) p[1] *= s_scale;
      if (draw.hue) {
        float h = p[0] + draw.hue_shift;
        if (h > 360.0f) h -= 360.0f;
        if (h < 0.0f) h += 360.0f;
        p[0] = h;
      }
    }
  }
}

}  // namespace

std::shared_ptr<const Transform> PhotoMetricDistortion::from_config(const ConfigNode& node) {
  PhotoMetricDistortionOptions o;
  o.brightness_delta = node.get<double>("brightness_delta", o.brightness_delta);
  std::tie(o.contrast_lower, o.contrast_upper) =
      range_of(node, "contrast_range", {o.contrast_lower, o.contrast_upper});
  std::tie(o.saturation_lower, o.saturation_upper) =
      range_of(node, "saturation_range", {o.saturation_lower, o.saturation_upper});
  o.hue_delta = node.get<double>("hue_delta", o.hue_delta);
  return std::make_shared<PhotoMetricDistortion>(o);
}

Schema PhotoMetricDistortion::schema() {
  return Schema::map()
      .required("type", Schema::string())
      .optional("brightness_delta", Schema::number())
      .optional("contrast_range", Schema::sequence(Schema::number()))
      .optional("saturation_range", Schema::sequence(Schema::number()))
      .optional("hue_delta", Schema::number());
}

PhotoMetricDistortion::Draw PhotoMetricDistortion::draw(std::mt19937_64& rng) const {
  const PhotoMetricDistortionOptions& o = options_;
  Draw d;
  if ((d.brightness = draw_coin(rng)))
    d.brightness_delta =
        static_cast<float>(draw_uniform(rng, -o.brightness_delta, o.brightness_delta));
  d.contrast_first = draw_coin(rng);
  if (d.contrast_first && (d.contrast = draw_coin(rng)))
    d.contrast_alpha = static_cast<float>(draw_uniform(rng, o.contrast_lower, o.contrast_upper));
  if ((d.saturation = draw_coin(rng)))
    d.saturation_scale =
        static_cast<float>(draw_uniform(rng, o.saturation_lower, o.saturation_upper));
  if ((d.hue = draw_coin(rng)))
    d.hue_shift = static_cast<float>(draw_uniform(rng, -o.hue_delta, o.hue_delta));
  if (!d.contrast_first && (d.contrast = draw_coin(rng)))
    d.contrast_alpha = static_cast<float>(draw_uniform(rng, o.contrast_lower, o.contrast_upper));
  if ((d.swap = draw_coin(rng))) {
    for (int i = 2; i > 0; --i) std::swap(d.permutation[i], d.permutation[draw_index(rng, i + 1)]);
  }
  return d;
}

void PhotoMetricDistortion::distort(cv::Mat& image, const Draw& d) {
  const float add = d.brightness ? d.brightness_delta : 0.0f;
  const float first_scale = (d.contrast_first && d.contrast) ? d.contrast_alpha : 1.0f;
  const bool first_pass = d.brightness || first_scale != 1.0f;
  const bool last_pass = !d.contrast_first && d.contrast;
  // Every step is per pixel, so the image is processed in bands that stay in cache: one trip
  // through memory instead of one per step.
  constexpr int kBandBytes = 1 << 17;
  const int band_rows = std::max(1, kBandBytes / static_cast<int>(image.cols * 3 * sizeof(float)));
  thread_local cv::Mat hsv;
  for (int y = 0; y < image.rows; y += band_rows) {
    cv::Mat band = image.rowRange(y, std::min(image.rows, y + band_rows));
    if (first_pass) scale_add(band, add, first_scale);
    // Original behaviour: the "BGR"->HSV conversion runs on RGB-ordered normalised data.
    cv::cvtColor(band, hsv, cv::COLOR_BGR2HSV);
    if (d.saturation || d.hue) adjust_hsv(hsv, d);
    cv::cvtColor(hsv, band, cv::COLOR_HSV2BGR);
    if (last_pass) scale_add(band, 0.0f, d.contrast_alpha);
  }
}

void PhotoMetricDistortion::apply(PipelineData& data, std::mt19937_64& rng) const {
  require_unpadded(data, type());
  ensure_float_images(data);
  apply_channel_order(data);
  data.channel_order.assign(data.images.size(), {0, 1, 2});
  for (size_t i = 0; i < data.images.size(); ++i) {
    const Draw d = draw(rng);
    distort(data.images[i], d);
    if (d.swap) data.channel_order[i] = d.permutation;
  }
}

}  // namespace olv2
