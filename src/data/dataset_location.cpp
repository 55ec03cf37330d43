#include "olv2/data/dataset_location.h"

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

// Splits "<stem>_<split>" at its last underscore; false when either part would
// be empty.
bool split_collection_name(const std::string& collection, std::string& stem, std::string& split) {
  const size_t underscore = collection.rfind('_');
  if (underscore == std::string::npos || underscore == 0 || underscore + 1 == collection.size()) {
    return false;
  }
  stem = collection.substr(0, underscore);
  split = collection.substr(underscore + 1);
  return true;
}

const char* kCollectionHint = "expected <stem>_<split>, e.g. data_dict_subset_A_train";

}  // namespace

DatasetLocation dataset_location_from_collection(const std::filesystem::path& data_root,
                                                 const std::filesystem::path& meta_root,
                                                 const std::string& collection) {
  std::string stem;
  std::string split;
  if (!split_collection_name(collection, stem, split)) {
    throw input_error("collection `" + collection + "`: " + kCollectionHint);
  }
  return {data_root, meta_root / (stem + ".json"), split};
}

DatasetLocation resolve_dataset_location(const ConfigNode& root, const std::string& split_key) {
  const ConfigNode& dataset = root.at("data").at(split_key);
  if (const ConfigNode* ann_file = dataset.find("ann_file")) {
    // TopoNet's `<folder>/<stem>_<split>.pkl`: the devkit made it from <folder>/<stem>.json,
    // which ships with the dataset and is read here.
    const std::filesystem::path pickle = ann_file->as_string();
    std::string stem;
    std::string split;
    if (!split_collection_name(pickle.stem().string(), stem, split)) {
      throw input_error(ann_file->where() + ": `" + ann_file->text() +
                        "`: expected <folder>/<stem>_<split>.pkl, e.g. "
                        "data/OpenLane-V2/data_dict_subset_A_train.pkl");
    }
    if (const ConfigNode* named = dataset.find("split");
        named != nullptr && named->as_string() != split) {
      throw input_error(named->where() + ": split `" + named->as_string() + "` differs from `" +
                        split + "` of ann_file " + ann_file->text());
    }
    return {root_key(root, dataset, "data_root"), pickle.parent_path() / (stem + ".json"), split};
  }
  const ConfigNode& collection = dataset.at("collection");
  std::string stem;
  std::string split;
  if (!split_collection_name(collection.as_string(), stem, split)) {
    throw input_error(collection.where() + ": `" + collection.text() + "`: " + kCollectionHint);
  }
  const std::filesystem::path data_root = root_key(root, dataset, "data_root");
  const std::filesystem::path meta_root = root_key(root, dataset, "meta_root");
  return {data_root, meta_root / (stem + ".json"), split};
}

}  // namespace olv2
