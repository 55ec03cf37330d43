#pragma once
// BEVFormer's `GridMaskMultiViewImage` transform: a random grid of stripes masks every camera's
// image, with its options and the grid itself.
#include <cstdint>
#include <memory>
#include <opencv2/core.hpp>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

// Defaults: the original's.
struct GridMaskOptions {
  bool use_h = true;   // horizontal stripes
  bool use_w = true;   // vertical stripes
  double ratio = 0.5;  // a stripe's width over the grid period
  int64_t mode = 1;    // 1: the mask inverted (only the stripes kept)
  double prob = 0.7;   // the chance a sample is masked
};

// The random draws of one masking, in the original's order and ranges: `rand` in [0, 1) (the
// sample is left as it is when it exceeds prob), period d in [2, h), offsets st_h, st_w in
// [0, d).
struct GridMaskDraws {
  double rand = 0.0;
  int64_t d = 2;
  int64_t st_h = 0;
  int64_t st_w = 0;
};

// The float32 [h, w] mask of `draws`: a 1.5x grid of ones with stripes of width
// min(max(int(d * ratio + 0.5), 1), d - 1) zeroed every d rows (from st_h) and columns (from
// st_w), its centre [h, w] cut out, inverted when mode is 1.
cv::Mat grid_mask(int64_t h, int64_t w, const GridMaskDraws& draws, const GridMaskOptions& options);

// GridMaskMultiViewImage: with probability `prob`, multiplies every image by one grid_mask the
// size of the (padded) first image, its draws taken from the sample's generator. Images are
// padded at the bottom and right later, so each unpadded image takes the mask's top-left part;
// the padding is zero either way. Rotation (rotate > 1) and `offset` are not supported.
class GridMask : public Transform {
 public:
  explicit GridMask(GridMaskOptions options) : options_(options) {}
  static std::shared_ptr<const Transform> from_config(const ConfigNode& node);
  static Schema schema();
  const char* type() const override { return "GridMaskMultiViewImage"; }
  void apply(PipelineData& data, std::mt19937_64& rng) const override;
  // The masking with given draws (the test's hook for the original's numbers).
  void apply_draws(PipelineData& data, const GridMaskDraws& draws) const;

 private:
  GridMaskOptions options_;
};

}  // namespace olv2
