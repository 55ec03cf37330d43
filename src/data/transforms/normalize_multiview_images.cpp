#include "olv2/data/transforms/normalize_multiview_images.h"

#include "olv2/data/transforms/image_state.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

std::array<float, 3> three_floats(const ConfigNode& node, const char* key,
                                  std::array<float, 3> fallback) {
  const ConfigNode* value = node.find(key);
  if (value == nullptr || value->is_null()) return fallback;
  const std::vector<float> v = value->as_vector<float>();
  if (v.size() != 3) throw input_error(value->where() + ": expected 3 numbers (one per channel)");
  return {v[0], v[1], v[2]};
}

// 8-bit BGR (or RGB) -> normalised float32 through per-channel lookup tables.
void normalize_u8(const cv::Mat& in, cv::Mat& out, const std::array<int, 3>& source_channel,
                  const std::array<std::array<float, 256>, 3>& table) {
  out.create(in.rows, in.cols, CV_32FC3);
  for (int y = 0; y < in.rows; ++y) {
    const uint8_t* src = in.ptr<uint8_t>(y);
    float* dst = out.ptr<float>(y);
    for (int x = 0; x < in.cols; ++x, src += 3, dst += 3) {
      dst[0] = table[0][src[source_channel[0]]];
      dst[1] = table[1][src[source_channel[1]]];
      dst[2] = table[2][src[source_channel[2]]];
    }
  }
}

void normalize_f32(cv::Mat& image, const std::array<int, 3>& source_channel,
                   const std::array<float, 3>& mean, const std::array<float, 3>& std) {
  for (int y = 0; y < image.rows; ++y) {
    float* p = image.ptr<float>(y);
    for (int x = 0; x < image.cols; ++x, p += 3) {
      const float v[3] = {p[source_channel[0]], p[source_channel[1]], p[source_channel[2]]};
      for (int c = 0; c < 3; ++c) p[c] = (v[c] - mean[c]) / std[c];
    }
  }
}

}  // namespace

std::shared_ptr<const Transform> NormalizeMultiViewImages::from_config(const ConfigNode& node) {
  NormalizeMultiViewImagesOptions options;
  options.mean = three_floats(node, "mean", options.mean);
  options.std = three_floats(node, "std", options.std);
  options.to_rgb = node.get<bool>("to_rgb", options.to_rgb);
  for (float s : options.std)
    if (!(s > 0)) throw input_error(node.at("std").where() + ": std must be positive");
  return std::make_shared<NormalizeMultiViewImages>(options);
}

Schema NormalizeMultiViewImages::schema() {
  return Schema::map()
      .required("type", Schema::string())
      .required("mean", Schema::sequence(Schema::number()))
      .required("std", Schema::sequence(Schema::number()))
      .optional("to_rgb", Schema::boolean());
}

void NormalizeMultiViewImages::apply(PipelineData& data, std::mt19937_64& /*rng*/) const {
  require_unpadded(data, type());
  apply_channel_order(data);
  // The original stores mean/std as float32 and works in float32 (bit-exact
  // with OpenCV's subtract/multiply path it calls).
  const std::array<int, 3> source =
      options_.to_rgb ? std::array<int, 3>{2, 1, 0} : std::array<int, 3>{0, 1, 2};
  if (!data.images_float) {
    std::array<std::array<float, 256>, 3> table;
    for (int c = 0; c < 3; ++c)
      for (int v = 0; v < 256; ++v)
        table[c][v] = (static_cast<float>(v) - options_.mean[c]) / options_.std[c];
    for (cv::Mat& image : data.images) {
      cv::Mat normalized;
      normalize_u8(image, normalized, source, table);
      image = normalized;
    }
    data.images_float = true;
  } else {
    for (cv::Mat& image : data.images) normalize_f32(image, source, options_.mean, options_.std);
  }
  if (options_.to_rgb) data.images_rgb = !data.images_rgb;
}

}  // namespace olv2
