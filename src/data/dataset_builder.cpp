#include "olv2/data/dataset_builder.h"

#include "olv2/data/data_section.h"
#include "olv2/data/frame_reader.h"
#include "olv2/data/pipeline_schema.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

// The collection file is where `meta_root` says, relative to the current folder unless
// absolute; an input error that says so, and how to point the config at the data, when it is
// not there.
void require_collection_file(const DatasetLocation& location, const ConfigNode& collection) {
  std::error_code error;
  if (std::filesystem::is_regular_file(location.collection_file, error)) return;
  const std::string relative =
      location.collection_file.is_relative()
          ? ", relative to the current folder " + std::filesystem::current_path(error).string()
          : "";
  throw input_error(collection.where() + ": collection file " + location.collection_file.string() +
                    " not found (in `meta_root`" + relative +
                    "); point `data_root` and `meta_root` at the OpenLane-V2 folder, e.g. "
                    "--cfg-options data_root=DIR meta_root=DIR");
}

}  // namespace

Schema DatasetSpec::schema() {
  return Schema::map()
      .optional("type",
                Schema::string().choices({"OpenLaneV2SubsetADataset", "OpenLaneV2SubsetBDataset"}))
      .optional("data_root", Schema::string())
      .optional("meta_root", Schema::string())
      .required("collection", Schema::string())
      .optional("pipeline", pipeline_schema())
      .optional("test_mode", Schema::boolean());
}

DatasetSpec DatasetSpec::from_config(const ConfigNode& root, const std::string& split_key) {
  DatasetSpec spec;
  spec.location = resolve_dataset_location(root, split_key);
  require_collection_file(spec.location, root.at("data").at(split_key).at("collection"));
  const std::string type = root.at("data").at(split_key).get<std::string>("type", "");
  if (type == "OpenLaneV2SubsetADataset") spec.subset = Subset::kA;
  if (type == "OpenLaneV2SubsetBDataset") spec.subset = Subset::kB;
  spec.pipeline = build_pipeline(root.at("data").at(split_key).at("pipeline"));
  spec.skip_bad_frames = DataSection::from_config(root.at("data")).skip_bad_frames;
  return spec;
}

std::unique_ptr<OpenLaneV2Dataset> build_dataset(const DatasetSpec& spec, uint64_t seed) {
  FrameReadOptions read_options;
  read_options.point_interval = default_point_interval(spec.location.split);
  read_options.subset = spec.subset;
  FrameIndex index(spec.location.data_root, spec.location.collection_file, spec.location.split,
                   read_options);
  DatasetOptions options;
  options.seed = seed;
  options.skip_bad_frames = spec.skip_bad_frames;
  return std::make_unique<OpenLaneV2Dataset>(std::move(index), spec.pipeline, options);
}

}  // namespace olv2
