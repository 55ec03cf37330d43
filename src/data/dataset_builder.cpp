#include "olv2/data/dataset_builder.h"

#include "olv2/data/data_section.h"
#include "olv2/data/frame_reader.h"
#include "olv2/data/pipeline_schema.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

// LaneSegNet's datasets: subset A's v2.x lane-segment frames, the pedestrian crossings learned
// as lane segments (LaneSegNet) or every area as a point set (the Map Element Bucket).
constexpr const char* kLaneSegNetDataset = "OpenLaneV2_subset_A_LaneSegNet_Dataset";
constexpr const char* kMapElementBucketDataset = "OpenLaneV2_subset_A_MapElementBucket_Dataset";

// The collection file is where `meta_root` (or TopoNet's `ann_file`) says, relative to the
// current folder unless absolute; an input error that says so, and how to point the config at
// the data, when it is not there.
void require_collection_file(const DatasetLocation& location, const ConfigNode& collection,
                             const std::string& split_key) {
  std::error_code error;
  if (std::filesystem::is_regular_file(location.collection_file, error)) return;
  const std::string relative =
      location.collection_file.is_relative()
          ? ", relative to the current folder " + std::filesystem::current_path(error).string()
          : "";
  if (collection.path() == "data." + split_key + ".ann_file") {
    throw input_error(collection.where() + ": " + collection.text() +
                      " is read as the collection it was made from, " +
                      location.collection_file.string() + ", which is not there" + relative +
                      " (the OpenLane-V2 download has it beside the pickles); point ann_file at "
                      "that folder, e.g. --cfg-options data." +
                      split_key + ".ann_file=DIR/data_dict_subset_A_" + location.split + ".pkl");
  }
  throw input_error(collection.where() + ": collection file " + location.collection_file.string() +
                    " not found (in `meta_root`" + relative +
                    "); point `data_root` and `meta_root` at the OpenLane-V2 folder, e.g. "
                    "--cfg-options data_root=DIR meta_root=DIR");
}

}  // namespace

Schema DatasetSpec::schema() {
  Schema modality = Schema::map();
  for (const char* input : {"use_lidar", "use_camera", "use_radar", "use_map", "use_external"}) {
    modality.optional(input, Schema::boolean());
  }
  return Schema::map()
      .optional("type", Schema::string().choices(
                            {"OpenLaneV2SubsetADataset", "OpenLaneV2SubsetBDataset",
                             "OpenLaneV2_subset_A_Dataset", "OpenLaneV2_subset_B_Dataset",
                             kLaneSegNetDataset, kMapElementBucketDataset}))
      .optional("data_root", Schema::string())
      .optional("meta_root", Schema::string())
      .optional("collection", Schema::string())
      .optional("ann_file", Schema::string())
      .optional("split", Schema::string())
      .optional("classes", Schema::sequence(Schema::string().choices(
                               {"centerline", "lane_segment", "ped_crossing", "road_boundary"})))
      .optional("points_num", Schema::integer().range(2, 1000))
      .optional("modality", modality)
      .optional("filter_map_change", Schema::boolean())
      .optional("pipeline", pipeline_schema())
      .optional("test_mode", Schema::boolean());
}

namespace {

// The logs whose maps changed during recording, which TopoNet leaves out of training
// (`filter_map_change`), by subset.
const std::vector<std::string> kMapChangeLogsA = {
    "75e8adad-50a6-3245-8726-5e612db3d165", "54bc6dbc-ebfb-3fba-b5b3-57f88b4b79ca",
    "af170aac-8465-3d7b-82c5-64147e94af7d", "6e106cf8-f6dd-38f6-89c8-9be7a71e7275"};
const std::vector<std::string> kMapChangeLogsB = {
    "a6daedc3063b421cb3a05019e545f925", "02f1e5e2fc544798aad223f5ae5e8440",
    "55638ae3a8b34572aef756ee7fbce0df", "20ec831deb0f44e397497198cbe5a97c"};

// Which objects a dataset type gives its model.
enum class DatasetObjects { kCenterlines, kLaneSegmentsWithCrossings, kMapElements };

std::vector<std::string> expected_classes(DatasetObjects objects) {
  switch (objects) {
    case DatasetObjects::kLaneSegmentsWithCrossings:
      return {"lane_segment", "ped_crossing"};
    case DatasetObjects::kMapElements:
      return {"lane_segment", "ped_crossing", "road_boundary"};
    case DatasetObjects::kCenterlines:
      break;
  }
  return {"centerline"};
}

// TopoNet's and LaneSegNet's dataset keys that describe what the data is rather than where:
// they must say what the models read (their classes, cameras only).
void require_camera_inputs(const ConfigNode& dataset, DatasetObjects objects) {
  if (const ConfigNode* modality = dataset.find("modality")) {
    for (const auto& [input, used] : modality->entries()) {
      if (used.as_bool() != (input == "use_camera")) {
        throw input_error(used.where() +
                          ": the models read the cameras only (use_camera: true, "
                          "every other input false)");
      }
    }
  }
  const ConfigNode* classes = dataset.find("classes");
  if (classes == nullptr) return;
  if (classes->as_vector<std::string>() == expected_classes(objects)) return;
  switch (objects) {
    case DatasetObjects::kCenterlines:
      throw input_error(classes->where() + ": expected [centerline], the one lane class");
    case DatasetObjects::kLaneSegmentsWithCrossings:
      throw input_error(classes->where() +
                        ": expected [lane_segment, ped_crossing] (LaneSegNet's classes: "
                        "crossings are learned as lane segments)");
    case DatasetObjects::kMapElements:
      throw input_error(classes->where() +
                        ": expected [lane_segment, ped_crossing, road_boundary] (the Map Element "
                        "Bucket's classes)");
  }
}

// The LoadAnnotations3DLaneSegment of a lane-segment pipeline must load what the dataset type's
// get_ann_info gives: areas as point sets for the Map Element Bucket (`with_area: true`),
// crossings as lane segments for LaneSegNet.
void require_area_loading(const ConfigNode& pipeline, DatasetObjects objects) {
  if (objects == DatasetObjects::kCenterlines) return;
  for (size_t i = 0; i < pipeline.size(); ++i) {
    const ConfigNode& step = pipeline[i];
    if (step.get<std::string>("type", "") != "LoadAnnotations3DLaneSegment") continue;
    const bool with_area = step.get<bool>("with_area", false);
    if (with_area != (objects == DatasetObjects::kMapElements)) {
      throw input_error(step.where() +
                        (with_area ? ": with_area: true loads every area as a point set, which "
                                     "the Map Element Bucket's dataset gives; LaneSegNet's "
                                     "learns the crossings as lane segments"
                                   : ": the Map Element Bucket's dataset gives every area as a "
                                     "point set to the area head; set with_area: true"));
    }
  }
}

}  // namespace

DatasetSpec DatasetSpec::from_config(const ConfigNode& root, const std::string& split_key) {
  const ConfigNode& dataset = root.at("data").at(split_key);
  const ConfigNode* collection = dataset.find("collection");
  const ConfigNode* ann_file = dataset.find("ann_file");
  if ((collection == nullptr) == (ann_file == nullptr)) {
    throw input_error(dataset.where() +
                      ": give `collection` (e.g. data_dict_subset_A_train) or "
                      "TopoNet's `ann_file` (e.g. "
                      "data/OpenLane-V2/data_dict_subset_A_train.pkl), one of them");
  }
  const std::string type = dataset.get<std::string>("type", "");
  const DatasetObjects objects = type == kLaneSegNetDataset
                                     ? DatasetObjects::kLaneSegmentsWithCrossings
                                 : type == kMapElementBucketDataset ? DatasetObjects::kMapElements
                                                                    : DatasetObjects::kCenterlines;
  const bool lane_segments = objects != DatasetObjects::kCenterlines;
  require_camera_inputs(dataset, objects);
  DatasetSpec spec;
  spec.location = resolve_dataset_location(root, split_key);
  const ConfigNode& named = collection != nullptr ? *collection : *ann_file;
  if (lane_segments && frame_format(spec.location.kind) != FrameFormat::kLaneSegment) {
    throw input_error(named.where() + ": `" + named.text() + "` names a collection of v1.x " +
                      "centerline frames; " + type +
                      " reads v2.x lane-segment frames (e.g. "
                      "data_dict_subset_A_train_lanesegnet or data_dict_subset_A_train_ls)");
  }
  if (!lane_segments && frame_format(spec.location.kind) != FrameFormat::kLaneCenterline) {
    throw input_error(named.where() + ": `" + named.text() +
                      "` names a collection of v2.x lane-segment frames; the centerline models' "
                      "datasets read v1.x frames (e.g. data_dict_subset_A_train)");
  }
  require_collection_file(spec.location, named, split_key);
  if (lane_segments) spec.subset = Subset::kA;
  if (type == "OpenLaneV2SubsetADataset" || type == "OpenLaneV2_subset_A_Dataset") {
    spec.subset = Subset::kA;
  }
  if (type == "OpenLaneV2SubsetBDataset" || type == "OpenLaneV2_subset_B_Dataset") {
    spec.subset = Subset::kB;
  }
  // As TopoNet: only the training split drops the map-change logs.
  if (dataset.get<bool>("filter_map_change", false) && spec.location.split == "train") {
    if (!spec.subset) {
      throw input_error(dataset.at("filter_map_change").where() +
                        ": needs the dataset's `type` to tell the subset's map-change logs");
    }
    spec.excluded_sources = *spec.subset == Subset::kA ? kMapChangeLogsA : kMapChangeLogsB;
  }
  require_area_loading(dataset.at("pipeline"), objects);
  spec.pipeline = build_pipeline(dataset.at("pipeline"));
  const DataSection data = DataSection::from_config(root.at("data"));
  spec.skip_bad_frames = data.skip_bad_frames;
  spec.max_frames = data.max_frames;
  return spec;
}

FrameIndex build_frame_index(const DatasetSpec& spec) {
  FrameReadOptions read_options;
  read_options.kind = spec.location.kind;
  read_options.point_interval = default_point_interval(spec.location.split);
  read_options.subset = spec.subset;
  read_options.excluded_sources = spec.excluded_sources;
  if (spec.max_frames) read_options.max_frames = static_cast<size_t>(*spec.max_frames);
  return FrameIndex(spec.location.data_root, spec.location.collection_file, spec.location.split,
                    read_options);
}

std::unique_ptr<OpenLaneV2Dataset> build_dataset(const DatasetSpec& spec, uint64_t seed) {
  FrameIndex index = build_frame_index(spec);
  DatasetOptions options;
  options.seed = seed;
  options.skip_bad_frames = spec.skip_bad_frames;
  return std::make_unique<OpenLaneV2Dataset>(std::move(index), spec.pipeline, options);
}

}  // namespace olv2
