#include "cli/split_arguments.h"

#include <map>

#include "cli/command_line.h"
#include "olv2/data/dataset_builder.h"
#include "olv2/engine/settings/train_config.h"
#include "olv2/util/error.h"

namespace olv2 {

namespace fs = std::filesystem;

std::optional<ConfigNode> SplitArguments::load_config() const {
  if (!has_config()) return std::nullopt;
  return read_train_config(config, cfg_options, max_frames);
}

fs::path SplitArguments::collection_file() const {
  if (fs::is_regular_file(collection)) return collection;
  if (collection.is_relative() && fs::is_regular_file(data_root / collection)) {
    return data_root / collection;
  }
  throw input_error("--collection " + collection.string() +
                    ": no such file, as given or under --data-root " + data_root.string());
}

namespace {

void require_data_flags(const SplitArguments& arguments) {
  if (arguments.data_root.empty() || arguments.collection.empty()) {
    throw input_error(
        "name the frames with a config (CONFIG --split val) or with --data-root and "
        "--collection");
  }
}

void require_config_section(const ConfigNode& root, const std::string& config,
                            const std::string& split) {
  if (!root.at("data").has(split)) {
    throw input_error(config + ": no `data." + split + "` section (--split " + split +
                      "; a config's splits are its train, val and test sections)");
  }
}

}  // namespace

FrameIndex SplitArguments::frame_index(const std::string& split,
                                       const std::optional<ConfigNode>& config) const {
  if (!frames_from_config()) {
    require_data_flags(*this);
    FrameReadOptions options;
    options.point_interval = default_point_interval(split);
    if (max_frames) options.max_frames = static_cast<size_t>(*max_frames);
    options.kind = collection_kind;
    return FrameIndex(data_root, collection_file(), split, options);
  }
  require_config_section(config.value(), this->config, split);
  return build_frame_index(DatasetSpec::from_config(*config, split));
}

void add_split_options(CLI::App& app, SplitArguments& arguments, const std::string& what,
                       bool split_required, bool frame_limit) {
  app.add_option("config", arguments.config,
                 "config whose `data.<split>` section names the frames (else the data flags)")
      ->check(CLI::ExistingFile);
  add_config_overrides(app, arguments.cfg_options);
  app.add_option("--data-root", arguments.data_root,
                 "without a config: the dataset root holding <split>/<segment>/info/")
      ->check(CLI::ExistingDirectory);
  app.add_option("--collection", arguments.collection,
                 "without a config: the collection JSON {split: {segment: [\"<timestamp>.json\", "
                 "...]}}; a relative path not found as given is looked up under --data-root");
  app.add_option("--collection-kind", arguments.collection_kind,
                 "without a config: which frames the collection names, as the suffix of the "
                 "pickles made of it says: centerline (v1.x, <timestamp>.json, the default), ls "
                 "(v2.x lane segments, <timestamp>-ls.json, lines resampled to 10 points and "
                 "areas to 20 as the devkit does) or lanesegnet (the same frames with the areas as "
                 "annotated, as LaneSegNet does)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, CollectionKind>{{"centerline", CollectionKind::kCenterline},
                                                {"ls", CollectionKind::kLaneSegment},
                                                {"lanesegnet", CollectionKind::kLaneSegNet}}));
  app.add_option("--split", arguments.split,
                 "the split to " + what +
                     ": a config's data section (train, val, test) or the collection's key")
      ->required(split_required);
  if (frame_limit) {
    app.add_option_function<int64_t>(
           "--max-frames", [&arguments](const int64_t& frames) { arguments.max_frames = frames; },
           "only the first N frames of the split")
        ->check(CLI::PositiveNumber);
  }
}

}  // namespace olv2
