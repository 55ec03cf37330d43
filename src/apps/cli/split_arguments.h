#pragma once
// The options that name one split of a dataset, shared by the programs that read one
// (evaluate, visualize): --data-root, --collection, --split.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>

namespace olv2 {

struct SplitArguments {
  std::filesystem::path data_root;
  std::filesystem::path collection;
  std::string split;

  // A relative collection path that does not exist as given is looked up under the data root.
  std::filesystem::path collection_file() const {
    if (collection.is_relative() && !std::filesystem::exists(collection) &&
        std::filesystem::exists(data_root / collection)) {
      return data_root / collection;
    }
    return collection;
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
                     "collection JSON {split: {segment: [\"<timestamp>.json\", ...]}}")
          ->check(CLI::ExistingFile);
  data_root->required(frames_required);
  collection->required(frames_required);
  app.add_option("--split", arguments.split, "split of the collection to " + what + " (e.g. val)")
      ->required();
}

}  // namespace olv2
