#include "olv2/data/dataset_builder.h"

#include "olv2/data/dataset_location.h"
#include "olv2/data/frame_reader.h"
#include "olv2/data/pipeline.h"

namespace olv2 {

std::unique_ptr<OpenLaneV2Dataset> build_dataset(const ConfigNode& root,
                                                 const std::string& split_key, uint64_t seed) {
  const DatasetLocation location = resolve_dataset_location(root, split_key);
  const ConfigNode& dataset = root.at("data").at(split_key);
  FrameIndex index(location.data_root, location.collection_file, location.split);
  Pipeline pipeline = build_pipeline(dataset.at("pipeline"));
  DatasetOptions options;
  options.seed = seed;
  options.skip_bad_frames = root.at("data").get<bool>("skip_bad_frames", false);
  return std::make_unique<OpenLaneV2Dataset>(std::move(index), std::move(pipeline), options);
}

}  // namespace olv2
