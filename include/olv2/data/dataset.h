#pragma once
// A split of an OpenLane-V2 dataset run through its pipeline, the original's
// `OpenLaneV2SubsetADataset`.
#include <atomic>
#include <cstdint>
#include <optional>

#include "olv2/data/frame_reader.h"
#include "olv2/data/pipeline.h"
#include "olv2/data/sample.h"

namespace olv2 {

struct DatasetOptions {
  uint64_t seed = 0;             // augmentation draws from (seed, epoch, index)
  bool skip_bad_frames = false;  // data.skip_bad_frames: a bad frame becomes a warning
};

// One split of OpenLane-V2 through a pipeline: the original's
// OpenLaneV2SubsetADataset. get() is thread-safe.
class OpenLaneV2Dataset {
 public:
  OpenLaneV2Dataset(FrameIndex index, Pipeline pipeline, DatasetOptions options);

  size_t size() const { return index_.size(); }
  const FrameIndex& index() const { return index_; }
  const Pipeline& pipeline() const { return pipeline_; }
  const DatasetOptions& options() const { return options_; }

  // Frame `index` through the pipeline; errors (olv2::Error) name the file at
  // fault. `images_into`: where the images go when the sizes match
  // (PipelineData::images_into).
  Sample get(size_t index, int64_t epoch, const at::Tensor& images_into = {}) const;
  // As get(), but with skip_bad_frames a bad frame logs a warning, counts in
  // skipped() and gives nullopt; without it, errors propagate.
  std::optional<Sample> try_get(size_t index, int64_t epoch,
                                const at::Tensor& images_into = {}) const;
  int64_t skipped() const { return skipped_.load(); }

 private:
  FrameIndex index_;
  Pipeline pipeline_;
  DatasetOptions options_;
  mutable std::atomic<int64_t> skipped_{0};
};

}  // namespace olv2
