#include "olv2/data/dataset.h"

#include <spdlog/spdlog.h>

#include "olv2/util/error.h"

namespace olv2 {

OpenLaneV2Dataset::OpenLaneV2Dataset(FrameIndex index, Pipeline pipeline, DatasetOptions options)
    : index_(std::move(index)), pipeline_(std::move(pipeline)), options_(options) {}

Sample OpenLaneV2Dataset::get(size_t index, int64_t epoch, const at::Tensor& images_into) const {
  const Frame frame = index_.load(index);
  std::mt19937_64 rng = make_sample_rng(options_.seed, epoch, static_cast<int64_t>(index));
  Sample sample = pipeline_.run(frame, index_.data_root().string(), rng, images_into);
  sample.index = static_cast<int64_t>(index);
  return sample;
}

std::optional<Sample> OpenLaneV2Dataset::try_get(size_t index, int64_t epoch,
                                                 const at::Tensor& images_into) const {
  if (!options_.skip_bad_frames) return get(index, epoch, images_into);
  try {
    return get(index, epoch, images_into);
  } catch (const Error& e) {
    const int64_t count = ++skipped_;
    spdlog::warn("skipping bad frame {} of split {} ({} skipped so far): {}", index, index_.split(),
                 count, e.what());
    return std::nullopt;
  }
}

}  // namespace olv2
