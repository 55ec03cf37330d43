#pragma once
// The options that name one split of a dataset, shared by the programs that read one
// (evaluate, visualize): --data-root, --collection, --split.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>

#include "olv2/util/error.h"

namespace olv2 {

struct SplitArguments {
  std::filesystem::path data_root;
  std::filesystem::path collection;
  std::string split;

  // A relative collection path that does not exist as given is looked up under the data root;
  // an input error naming --collection when it is in neither place.
  std::filesystem::path collection_file() const {
    if (std::filesystem::is_regular_file(collection)) return collection;
    if (collection.is_relative() && std::filesystem::is_regular_file(data_root / collection)) {
      return data_root / collection;
    }
    throw input_error("--collection " + collection.string() +
                      ": no such file, as given or under --data-root " + data_root.string());
  }
};

// Adds the three options, --split always required, the other two unless the program takes the
// frames from elsewhere too (`frames_required` false); `what` says what the program does with
// the split ("score", "draw").
inline void add_split_options(CLI::App& app, SplitArguments& arguments, const std::string& what,
                              bool frames_required = true) {
  CLI::Option* data_root = app.add_option("--data-root", arguments.data_root,
                                          "dataset root holding <split>/<segment>/info/")
                               ->check(CLI::ExistingDirectory);
  CLI::Option* collection =
      app.add_option("--collection", arguments.collection,
                     "collection JSON {split: {segment: [\"<timestamp>.json\", ...]}}; a "
                     "relative path not found as given is looked up under --data-root");
  data_root->required(frames_required);
  collection->required(frames_required);
  app.add_option("--split", arguments.split, "split of the collection to " + what + " (e.g. val)")
      ->required();
}

}  // namespace olv2
