#pragma once
// Where a split of an OpenLane-V2 dataset lives on disk, from the config or from a collection name.
#include <filesystem>
#include <string>

#include "olv2/config/config_node.h"
#include "olv2/data/frame_reader.h"

namespace olv2 {

// Where one split of an OpenLane-V2 dataset lives on disk.
struct DatasetLocation {
  std::filesystem::path data_root;  // images and info/ JSON: <data_root>/<split>/<segment>/...
  std::filesystem::path collection_file;              // <meta_root>/<stem>.json
  std::string split;                                  // the collection's top-level key
  CollectionKind kind = CollectionKind::kCenterline;  // which frames, resampled how
};

// Resolves `data.<split_key>` of a full config: `data_root` / `meta_root`
// default to the top-level keys of the same names (a per-split value wins);
// `collection: <stem>_<split>` names the file `<meta_root>/<stem>.json` and its
// top-level key `<split>`, as the official preprocessing names its outputs
// (`data_dict_subset_A_train` → `data_dict_subset_A.json`, key `train`). TopoNet's configs
// name the devkit's pickle instead, `ann_file: <folder>/<stem>_<split>.pkl`: the JSON it was
// made from, `<folder>/<stem>.json`, is read (a `split` key must agree). A name's suffix says
// the collection's kind (frame_reader.h: `_ls`, `_lanesegnet`).
// Relative paths stay relative to the current directory, as in the original.
DatasetLocation resolve_dataset_location(const ConfigNode& root, const std::string& split_key);

// The same from a collection name alone (for tools taking --data-root /
// --collection).
DatasetLocation dataset_location_from_collection(const std::filesystem::path& data_root,
                                                 const std::filesystem::path& meta_root,
                                                 const std::string& collection);

}  // namespace olv2
