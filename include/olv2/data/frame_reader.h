#pragma once
// Reading OpenLane-V2 frames: the collection JSON of a split, each frame's info JSON checked key by
// key, and the index of a split's frames.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "olv2/data/frame.h"

namespace olv2 {

// Identifies one frame of a collection.
struct FrameKey {
  std::string split;
  std::string segment_id;
  std::string timestamp;  // without ".json"
};

// The collections of OpenLane-V2 frames, each named `<stem>_<split>` plus the suffix of the
// preprocessing that made it (the devkit's and LaneSegNet's pickles, whose frames this reads):
// - none: v1.x centerline frames (`info/<timestamp>.json`, the devkit's `centerline` collect);
// - `_ls`: v2.x lane-segment frames (`info/<timestamp>-ls.json`) as the devkit's `lanesegment`
//   collect resamples them: every centerline and boundary to 10 points, every area to 20;
// - `_lanesegnet`: the same frames as LaneSegNet's `tools/data_process.py` collects them: the
//   lines to 10 points, the areas as annotated.
enum class CollectionKind { kCenterline, kLaneSegment, kLaneSegNet };

FrameFormat frame_format(CollectionKind kind);
// "", "_ls" or "_lanesegnet".
const char* collection_suffix(CollectionKind kind);
// The kind whose suffix `name` ends with (kCenterline for none) and the name without it.
std::pair<CollectionKind, std::string> collection_kind_of(const std::string& name);

// The original preprocessing keeps every centerline point for train (interval
// 1) and every 20th for val/test (201 -> 11 points).
int default_point_interval(const std::string& split);

// Split names of a collection JSON (`{split: {segment: ["<ts>.json", ...]}}`)
// in file order.
std::vector<std::string> read_collection_splits(const std::filesystem::path& collection_file);

// The frames of `split` in a collection JSON, in file order: segments are NOT
// sorted. Throws an input error naming the file when it is malformed or lacks
// the split.
std::vector<FrameKey> read_collection(const std::filesystem::path& collection_file,
                                      const std::string& split);

// `<data_root>/<split>/<segment>/info/<timestamp>.json`, or `<timestamp>-ls.json` for the
// lane-segment collections.
std::filesystem::path frame_info_path(const std::filesystem::path& data_root, const FrameKey& key,
                                      CollectionKind kind = CollectionKind::kCenterline);

struct FrameReadOptions {
  int point_interval =
      1;  // v1.x: keep centerline points 0, k, 2k, ... (the last one when k divides)
  std::optional<Subset>
      subset;  // the subset the frames must be of (a dataset's `type`); none: either
  // Segments whose frames' `meta_data.source_id` is one of these are left out of the index
  // (TopoNet's `filter_map_change`); each segment's first frame is read to tell.
  std::vector<std::string> excluded_sources;
  // Only the first this many frames of the split (in collection order, after the exclusions):
  // a quick run on a laptop (`data.max_frames`, --max-frames); none: every frame.
  std::optional<size_t> max_frames;
  // Which frames the collection names, resampled how.
  CollectionKind kind = CollectionKind::kCenterline;
};

// Parses one frame JSON text of the format of `options.kind`; `source` names the file in errors.
// Unknown keys are ignored. Input errors, each naming `source`, the key path and what was
// expected: malformed JSON or a key written twice; missing or ill-typed keys; a camera set other
// than subset A's 7 or subset B's 6 (frame.h), the front view first, or of another subset than
// options.subset; matrices of the wrong size, rotations that are not orthonormal, intrinsics that
// are not pinhole matrices; non-finite numbers (also after conversion to float32); centerlines of
// fewer than 2 or of unequal point counts; lane-segment lines and areas of fewer than 2 points;
// line types outside kLaneLineTypeNames, area categories outside kAreaCategoryNames; traffic
// element attributes outside [0, kTrafficElementClasses); ids used twice among the objects of a
// kind; topology matrices that do not fit the object counts or hold anything but 0/1.
Frame parse_frame(const std::string& json_text, const std::string& source, const FrameKey& key,
                  const FrameReadOptions& options);

// Reads and parses frame `key` under `data_root`.
Frame read_frame(const std::filesystem::path& data_root, const FrameKey& key,
                 const FrameReadOptions& options);

// The frames of one split of a collection. Construction reads only the
// collection (a 27k-frame dataset indexes in milliseconds); frames are parsed
// on demand by load(), which is thread-safe. Errors for a frame the collection
// lists but the disk lacks name both files. One split holds frames of one
// subset: a frame whose cameras are of the other subset than the first frame
// loaded is an input error naming it and both subsets.
class FrameIndex {
 public:
  FrameIndex(std::filesystem::path data_root, std::filesystem::path collection_file,
             const std::string& split, FrameReadOptions options);
  // point_interval = default_point_interval(split).
  FrameIndex(std::filesystem::path data_root, std::filesystem::path collection_file,
             const std::string& split);

  size_t size() const { return keys_.size(); }
  const FrameKey& key(size_t index) const { return keys_.at(index); }
  const std::vector<FrameKey>& keys() const { return keys_; }
  const std::string& split() const { return split_; }
  const std::filesystem::path& data_root() const { return data_root_; }
  const std::filesystem::path& collection_file() const { return collection_file_; }
  const FrameReadOptions& options() const { return options_; }
  // The info JSON of frame `index` (frame_info_path in the collection's kind).
  std::filesystem::path info_path(size_t index) const;

  Frame load(size_t index) const;

 private:
  std::filesystem::path data_root_;
  std::filesystem::path collection_file_;
  std::string split_;
  FrameReadOptions options_;
  std::vector<FrameKey> keys_;
  // The subset of the first frame loaded (kNoSubsetYet before); shared by copies.
  static constexpr int kNoSubsetYet = -1;
  std::shared_ptr<std::atomic<int>> subset_ = std::make_shared<std::atomic<int>>(kNoSubsetYet);
};

}  // namespace olv2
