// The collection JSON and the on-demand frame index.
#include "olv2/data/frame_reader.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "olv2/data/json_field.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"

namespace olv2 {
namespace {

using Json = nlohmann::ordered_json;  // keeps the file's key order: segments are
                                      // not sorted

Json read_collection_json(const std::filesystem::path& file) {
  const std::string text = read_file(file, "collection");
  const Json root = parse_strict_json(text, "collection " + file.string());
  if (!root.is_object()) {
    throw input_error("collection " + file.string() +
                      ": expected an object {split: {segment: [\"<timestamp>.json\", ...]}}");
  }
  return root;
}

const std::string kJsonSuffix = ".json";

}  // namespace

FrameFormat frame_format(CollectionKind kind) {
  return kind == CollectionKind::kCenterline ? FrameFormat::kLaneCenterline
                                             : FrameFormat::kLaneSegment;
}

const char* collection_suffix(CollectionKind kind) {
  switch (kind) {
    case CollectionKind::kLaneSegment:
      return "_ls";
    case CollectionKind::kLaneSegNet:
      return "_lanesegnet";
    case CollectionKind::kCenterline:
      break;
  }
  return "";
}

std::pair<CollectionKind, std::string> collection_kind_of(const std::string& name) {
  for (const CollectionKind kind : {CollectionKind::kLaneSegment, CollectionKind::kLaneSegNet}) {
    const std::string suffix = collection_suffix(kind);
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return {kind, name.substr(0, name.size() - suffix.size())};
    }
  }
  return {CollectionKind::kCenterline, name};
}

int default_point_interval(const std::string& split) { return split == "train" ? 1 : 20; }

std::vector<std::string> read_collection_splits(const std::filesystem::path& collection_file) {
  std::vector<std::string> splits;
  const Json root = read_collection_json(collection_file);  // items() must not outlive it
  for (const auto& item : root.items()) splits.push_back(item.key());
  return splits;
}

std::vector<FrameKey> read_collection(const std::filesystem::path& collection_file,
                                      const std::string& split) {
  const Json root = read_collection_json(collection_file);
  const std::string where = "collection " + collection_file.string();
  auto it = root.find(split);
  if (it == root.end()) {
    std::string available;
    for (const auto& item : root.items()) available += (available.empty() ? "" : ", ") + item.key();
    throw input_error(where + ": no split `" + split + "` (has: " + available + ")");
  }
  if (!it->is_object())
    throw input_error(where + ": key `" + split + "`: expected an object of segments");
  if (split == "." || split == ".." || split.find_first_of("/\\:") != std::string::npos) {
    throw input_error(where + ": split `" + split + "`: expected a name of one folder");
  }
  std::vector<FrameKey> keys;
  for (const auto& [segment, frames] : it->items()) {
    const std::string key_path = "key `" + split + "." + segment + "`";
    // A segment id names one folder under <data_root>/<split>/: nothing that leaves it.
    if (segment.empty() || segment == "." || segment == ".." ||
        segment.find_first_of("/\\:") != std::string::npos) {
      throw input_error(where + ": " + key_path +
                        ": expected a segment id naming one folder under the split (no '/', "
                        "'\\', ':', '.' or '..')");
    }
    if (!frames.is_array())
      throw input_error(where + ": " + key_path + ": expected a list of \"<timestamp>.json\"");
    for (const Json& name : frames) {
      const std::string file = name.is_string() ? name.get<std::string>() : std::string();
      const bool ok =
          file.size() > kJsonSuffix.size() &&
          file.compare(file.size() - kJsonSuffix.size(), kJsonSuffix.size(), kJsonSuffix) == 0 &&
          file.find_first_of("/\\:") == std::string::npos;
      if (!ok)
        throw input_error(where + ": " + key_path + ": expected \"<timestamp>.json\", got " +
                          name.dump());
      keys.push_back({split, segment, file.substr(0, file.size() - kJsonSuffix.size())});
    }
  }
  return keys;
}

std::filesystem::path frame_info_path(const std::filesystem::path& data_root, const FrameKey& key,
                                      CollectionKind kind) {
  const std::string file =
      key.timestamp + (frame_format(kind) == FrameFormat::kLaneSegment ? "-ls" : "") + kJsonSuffix;
  return data_root / key.split / key.segment_id / "info" / file;
}

Frame read_frame(const std::filesystem::path& data_root, const FrameKey& key,
                 const FrameReadOptions& options) {
  const std::filesystem::path path = frame_info_path(data_root, key, options.kind);
  return parse_frame(read_file(path, "frame"), path.string(), key, options);
}

namespace {

// The frame's `meta_data.source_id` (the log it was cut from), or "" when it has none.
std::string frame_source_id(const std::filesystem::path& path) {
  const Json frame = parse_strict_json(read_file(path, "frame"), "frame " + path.string());
  const auto meta = frame.find("meta_data");
  if (meta == frame.end() || !meta->is_object()) return "";
  const auto source = meta->find("source_id");
  return source != meta->end() && source->is_string() ? source->get<std::string>() : "";
}

// `keys` without the segments whose first frame comes from one of `excluded` sources.
std::vector<FrameKey> without_sources(std::vector<FrameKey> keys,
                                      const std::filesystem::path& data_root, CollectionKind kind,
                                      const std::vector<std::string>& excluded) {
  if (excluded.empty()) return keys;
  std::map<std::string, bool> segment_excluded;
  std::vector<FrameKey> kept;
  for (FrameKey& key : keys) {
    auto found = segment_excluded.find(key.segment_id);
    if (found == segment_excluded.end()) {
      const std::string source = frame_source_id(frame_info_path(data_root, key, kind));
      const bool drop = std::find(excluded.begin(), excluded.end(), source) != excluded.end();
      found = segment_excluded.emplace(key.segment_id, drop).first;
    }
    if (!found->second) kept.push_back(std::move(key));
  }
  return kept;
}

}  // namespace

FrameIndex::FrameIndex(std::filesystem::path data_root, std::filesystem::path collection_file,
                       const std::string& split, FrameReadOptions options)
    : data_root_(std::move(data_root)),
      collection_file_(std::move(collection_file)),
      split_(split),
      options_(options),
      keys_(without_sources(read_collection(collection_file_, split), data_root_, options_.kind,
                            options_.excluded_sources)) {
  if (options_.max_frames && keys_.size() > *options_.max_frames) {
    keys_.resize(*options_.max_frames);
  }
}

FrameIndex::FrameIndex(std::filesystem::path data_root, std::filesystem::path collection_file,
                       const std::string& split)
    : FrameIndex(std::move(data_root), std::move(collection_file), split, [&] {
        FrameReadOptions options;
        options.point_interval = default_point_interval(split);
        return options;
      }()) {}

std::filesystem::path FrameIndex::info_path(size_t index) const {
  return frame_info_path(data_root_, keys_.at(index), options_.kind);
}

Frame FrameIndex::load(size_t index) const {
  if (index >= keys_.size()) {
    throw runtime_error("frame index " + std::to_string(index) + " out of range (" +
                        std::to_string(keys_.size()) + " frames in split " + split_ + ")");
  }
  const FrameKey& key = keys_[index];
  const std::filesystem::path path = info_path(index);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw input_error("collection " + collection_file_.string() + " lists frame " + key.split +
                      "/" + key.segment_id + "/" + key.timestamp + ".json, but " + path.string() +
                      " does not exist" +
                      (frame_format(options_.kind) == FrameFormat::kLaneSegment
                           ? " (a lane-segment collection reads the frames' -ls.json files)"
                           : ""));
  }
  Frame frame = read_frame(data_root_, key, options_);
  int first = kNoSubsetYet;
  const int subset = static_cast<int>(frame.subset);
  if (!subset_->compare_exchange_strong(first, subset) && first != subset) {
    throw input_error("frame " + path.string() + ": the cameras of subset " +
                      subset_name(frame.subset) + ", but other frames of split `" + split_ +
                      "` of collection " + collection_file_.string() + " are of subset " +
                      subset_name(static_cast<Subset>(first)) + ": a collection holds one subset");
  }
  return frame;
}

}  // namespace olv2
