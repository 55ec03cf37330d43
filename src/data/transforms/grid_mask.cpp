#include "olv2/data/transforms/grid_mask.h"

#include <algorithm>

#include "olv2/data/transforms/image_state.h"
#include "olv2/util/error.h"

namespace olv2 {

std::shared_ptr<const Transform> GridMask::from_config(const ConfigNode& node) {
  GridMaskOptions o;
  o.use_h = node.get<bool>("use_h", o.use_h);
  o.use_w = node.get<bool>("use_w", o.use_w);
  o.ratio = node.get<double>("ratio", o.ratio);
  o.mode = node.get<int64_t>("mode", o.mode);
  o.prob = node.get<double>("prob", o.prob);
  if (node.get<int64_t>("rotate", 1) > 1) {
    throw input_error(node.at("rotate").where() +
                      ": rotate > 1 is not supported (the configs "
                      "use the default, 1)");
  }
  if (node.get<bool>("offset", false)) {
    throw input_error(node.at("offset").where() +
                      ": offset is not supported (the original "
                      "never applies it)");
  }
  return std::make_shared<GridMask>(o);
}

Schema GridMask::schema() {
  return Schema::map()
      .required("type", Schema::string())
      .optional("use_h", Schema::boolean())
      .optional("use_w", Schema::boolean())
      .optional("rotate", Schema::integer())
      .optional("offset", Schema::boolean())
      .optional("ratio", Schema::number().range(0, 1))
      .optional("mode", Schema::integer().range(0, 1))
      .optional("prob", Schema::number().range(0, 1));
}

cv::Mat grid_mask(int64_t h, int64_t w, const GridMaskDraws& draws,
                  const GridMaskOptions& options) {
  const int64_t hh = static_cast<int64_t>(1.5 * static_cast<double>(h));
  const int64_t ww = static_cast<int64_t>(1.5 * static_cast<double>(w));
  const int64_t d = draws.d;
  const int64_t stripe = std::min(
      std::max(static_cast<int64_t>(static_cast<double>(d) * options.ratio + 0.5), int64_t{1}),
      d - 1);
  cv::Mat mask(static_cast<int>(hh), static_cast<int>(ww), CV_32F, cv::Scalar(1.0f));
  if (options.use_h) {
    for (int64_t i = 0; i < hh / d; ++i) {
      const int64_t s = d * i + draws.st_h;
      const int64_t t = std::min(s + stripe, hh);
      if (s < t) mask.rowRange(static_cast<int>(s), static_cast<int>(t)).setTo(0.0f);
    }
  }
  if (options.use_w) {
    for (int64_t i = 0; i < ww / d; ++i) {
      const int64_t s = d * i + draws.st_w;
      const int64_t t = std::min(s + stripe, ww);
      if (s < t) mask.colRange(static_cast<int>(s), static_cast<int>(t)).setTo(0.0f);
    }
  }
  cv::Mat centre = mask(cv::Rect(static_cast<int>((ww - w) / 2), static_cast<int>((hh - h) / 2),
                                 static_cast<int>(w), static_cast<int>(h)))
                       .clone();
  if (options.mode == 1) centre = 1.0f - centre;
  return centre;
}

void GridMask::apply(PipelineData& data, std::mt19937_64& rng) const {
  GridMaskDraws draws;
  draws.rand = draw_uniform(rng, 0.0, 1.0);
  if (draws.rand > options_.prob) return;
  const std::array<int64_t, 3>& first =
      data.pad_shape.empty() ? data.img_shape[0] : data.pad_shape[0];
  if (first[0] < 3) {
    throw input_error("frame " + data.frame_name +
                      ": GridMaskMultiViewImage needs images of at least 3 rows");
  }
  draws.d = 2 + draw_index(rng, static_cast<int>(first[0] - 2));
  draws.st_h = draw_index(rng, static_cast<int>(draws.d));
  draws.st_w = draw_index(rng, static_cast<int>(draws.d));
  apply_draws(data, draws);
}

void GridMask::apply_draws(PipelineData& data, const GridMaskDraws& draws) const {
  if (draws.rand > options_.prob) return;
  if (data.images.empty())
    throw input_error("pipeline: GridMaskMultiViewImage needs loaded images");
  const std::array<int64_t, 3>& first =
      data.pad_shape.empty() ? data.img_shape[0] : data.pad_shape[0];
  const cv::Mat mask = grid_mask(first[0], first[1], draws, options_);
  ensure_float_images(data);
  for (cv::Mat& image : data.images) {
    const cv::Mat part =
        mask(cv::Rect(0, 0, std::min(image.cols, mask.cols), std::min(image.rows, mask.rows)));
    std::vector<cv::Mat> channels;
    cv::split(image, channels);
    for (cv::Mat& channel : channels) {
      cv::Mat region = channel(cv::Rect(0, 0, part.cols, part.rows));
      cv::multiply(region, part, region);
    }
    cv::merge(channels, image);
  }
}

}  // namespace olv2
