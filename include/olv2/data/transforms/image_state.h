#pragma once
// The image work transforms defer to fuse passes, done on demand by a transform that needs it.
#include "olv2/data/pipeline_data.h"

namespace olv2 {

// Work that transforms defer to fuse passes, made explicit for a transform that
// needs it done.

// Converts 8-bit images to float32 in place (a no-op when already float).
void ensure_float_images(PipelineData& data);

// Applies a pending channel swap (drawn by the photometric distortion) to the
// pixels.
void apply_channel_order(PipelineData& data);

// Throws an input error when padding was already recorded: `transform` changes
// pixels and must come before CustomPadMultiViewImage.
void require_unpadded(const PipelineData& data, const char* transform);

}  // namespace olv2
