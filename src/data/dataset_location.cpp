#include "olv2/data/dataset_location.h"

#include <optional>
#include <tuple>

#include "olv2/util/error.h"

namespace olv2 {

namespace {

std::string root_key(const ConfigNode& root, const ConfigNode& dataset, const std::string& key) {
  if (const ConfigNode* own = dataset.find(key); own != nullptr && !own->is_null()) {
    return own->as_string();
  }
  if (const ConfigNode* shared = root.find(key); shared != nullptr && !shared->is_null()) {
    return shared->as_string();
  }
  throw input_error(dataset.where() + ": no `" + key + "`: set `" + dataset.path() + "." + key +
                    "` or the top-level `" + key + "`");
}

// Splits "<stem>_<split><suffix>" at the last underscore before the kind's suffix; false when
// the stem or the split would be empty.
bool split_collection_name(const std::string& name, std::string& stem, std::string& split,
                           CollectionKind& kind) {
  std::string collection;
  std::tie(kind, collection) = collection_kind_of(name);
  const size_t underscore = collection.rfind('_');
  if (underscore == std::string::npos || underscore == 0 || underscore + 1 == collection.size()) {
    return false;
  }
  stem = collection.substr(0, underscore);
  split = collection.substr(underscore + 1);
  return true;
}

const char* kCollectionHint =
    "expected <stem>_<split>, e.g. data_dict_subset_A_train (v1.x centerline frames), "
    "data_dict_subset_A_train_ls (v2.x lane-segment frames as the devkit collects them) or "
    "data_dict_subset_A_train_lanesegnet (as LaneSegNet does)";

// The location of a pickle the devkit or LaneSegNet made (`<folder>/<stem>_<split><suffix>.pkl`):
// the collection JSON beside it, which the pickle was made from.
DatasetLocation dataset_location_from_pickle(const std::filesystem::path& data_root,
                                             const std::filesystem::path& pickle,
                                             const std::string& where) {
  std::string stem;
  std::string split;
  CollectionKind kind;
  if (pickle.extension() != ".pkl" ||
      !split_collection_name(pickle.stem().string(), stem, split, kind)) {
    throw input_error(where + ": `" + pickle.string() +
                      "`: expected <folder>/<stem>_<split>.pkl, e.g. "
                      "data/OpenLane-V2/data_dict_subset_A_train.pkl (v1.x centerline frames), "
                      "data_dict_subset_A_train_ls.pkl or data_dict_subset_A_train_lanesegnet.pkl "
                      "(v2.x lane-segment frames)");
  }
  return {data_root, pickle.parent_path() / (stem + ".json"), split, kind};
}

// The location a collection name gives (`<meta_root>/<stem>.json`, key `<split>`); none when the
// name is not of that form.
std::optional<DatasetLocation> collection_location(const std::filesystem::path& data_root,
                                                   const std::filesystem::path& meta_root,
                                                   const std::string& collection) {
  std::string stem;
  std::string split;
  CollectionKind kind;
  if (!split_collection_name(collection, stem, split, kind)) return std::nullopt;
  return DatasetLocation{data_root, meta_root / (stem + ".json"), split, kind};
}

}  // namespace

DatasetLocation dataset_location_from_collection(const std::filesystem::path& data_root,
                                                 const std::filesystem::path& meta_root,
                                                 const std::string& collection) {
  const auto location = collection_location(data_root, meta_root, collection);
  if (!location) throw input_error("collection `" + collection + "`: " + kCollectionHint);
  return *location;
}

DatasetLocation resolve_dataset_location(const ConfigNode& root, const std::string& split_key) {
  const ConfigNode& dataset = root.at("data").at(split_key);
  if (const ConfigNode* ann_file = dataset.find("ann_file")) {
    // TopoNet's and LaneSegNet's `<folder>/<stem>_<split><suffix>.pkl` was made from
    // <folder>/<stem>.json, which ships with the dataset and is read here.
    DatasetLocation location = dataset_location_from_pickle(
        root_key(root, dataset, "data_root"), ann_file->as_string(), ann_file->where());
    if (const ConfigNode* named = dataset.find("split");
        named != nullptr && named->as_string() != location.split) {
      throw input_error(named->where() + ": split `" + named->as_string() + "` differs from `" +
                        location.split + "` of ann_file " + ann_file->text());
    }
    return location;
  }
  const ConfigNode& collection = dataset.at("collection");
  const std::filesystem::path data_root = root_key(root, dataset, "data_root");
  const std::filesystem::path meta_root = root_key(root, dataset, "meta_root");
  const auto location = collection_location(data_root, meta_root, collection.as_string());
  if (!location) {
    throw input_error(collection.where() + ": `" + collection.text() + "`: " + kCollectionHint);
  }
  return *location;
}

}  // namespace olv2
