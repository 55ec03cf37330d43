#pragma once
// The arguments that name the frames of one split, shared by the data tools (evaluate,
// visualize, check_data): a config and its `data.<split>` section, as train_ds and test_ds read
// it (`CONFIG --split val`, with --cfg-options), or the data explicitly (--data-root,
// --collection, --split naming the collection's key), which then win over a config's sections
// (the config still gives what else the tool takes from it: pipelines, BEV range).
#include <CLI/CLI.hpp>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/data/frame_reader.h"

namespace olv2 {

struct SplitArguments {
  std::string config;  // empty: the data flags name the frames
  std::vector<std::string> cfg_options;
  std::filesystem::path data_root;
  std::filesystem::path collection;
  CollectionKind collection_kind = CollectionKind::kCenterline;
  std::string split;
  std::optional<int64_t> max_frames;

  bool has_config() const { return !config.empty(); }
  bool frames_from_config() const {
    return has_config() && data_root.empty() && collection.empty();
  }

  // The config with --cfg-options and --max-frames applied, checked as train_ds checks it;
  // none without a config.
  std::optional<ConfigNode> load_config() const;

  // A relative collection path that does not exist as given is looked up under the data root;
  // an input error naming --collection when it is in neither place.
  std::filesystem::path collection_file() const;

  // The frames of `split`: from the data flags, else as training reads the config's
  // `data.<split>` (its subset and left-out logs; a missing section or collection is an input
  // error naming it); the first --max-frames (or `data.max_frames`) of them. `config` is what
  // load_config() returned.
  FrameIndex frame_index(const std::string& split, const std::optional<ConfigNode>& config) const;
};

// Adds the config positional and the options: --cfg-options, --data-root, --collection, --split
// (required when `split_required`), and --max-frames unless `frame_limit` is false; `what` says
// what the program does with the frames ("score", "draw", "check").
void add_split_options(CLI::App& app, SplitArguments& arguments, const std::string& what,
                       bool split_required, bool frame_limit);

}  // namespace olv2
