#pragma once
// mmdet's `SinePositionalEncoding` of DETR, from a padding mask, with its config.
#include <ATen/core/Tensor.h>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"

namespace olv2 {

struct SinePositionalEncodingOptions {
  int64_t num_feats = 32;  // channels per axis; the output has 2 * num_feats channels
  double temperature = 10000.0;
  bool normalize = false;
  double scale = 6.283185307179586;  // 2 pi
  double eps = 1e-6;
  double offset = 0.0;

  // mmdet `type: SinePositionalEncoding`.
  static Schema schema();
  static SinePositionalEncodingOptions from_config(const ConfigNode& section);
};

// mmdet `SinePositionalEncoding` (DETR): from a padding mask [B, H, W] (true =
// padded) builds [B, 2 * num_feats, H, W]; channels [0, num_feats) encode the
// row position (cumulative count of valid cells down each column), the rest the
// column position, alternating sin / cos.
at::Tensor sine_positional_encoding(const at::Tensor& mask,
                                    const SinePositionalEncodingOptions& options);

}  // namespace olv2
