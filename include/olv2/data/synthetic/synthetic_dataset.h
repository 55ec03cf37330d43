#pragma once
// A small synthetic dataset in OpenLane-V2's on-disk format, written from one seed.
#include <cstdint>
#include <filesystem>

#include "olv2/data/frame.h"

namespace olv2::synthetic {

struct SyntheticDataOptions {
  std::filesystem::path out;  // becomes the data_root of a config
  int64_t frames = 96;        // in all
  int64_t val_frames = 16;    // of `frames`, in the val split
  int64_t test_frames = 0;    // more frames, without annotation, in a `test` split (0: none)
  uint64_t seed = 0;
  double image_scale = 0.125;  // image size relative to the real Argoverse 2 cameras
  bool write_images = true;    // false: annotations only
  int64_t frames_per_segment = 2;
  Subset subset = Subset::kA;  // whose cameras the frames have
  // v1.x frames (`info/<timestamp>.json`: lane centerlines) or v2.x ones (`<timestamp>-ls.json`:
  // lane segments, a pedestrian crossing and the road boundaries, whose images show the
  // crossing too); the collection lists either as "<timestamp>.json".
  FrameFormat format = FrameFormat::kLaneCenterline;
};

struct SyntheticDataSummary {
  std::filesystem::path collection_file;  // out/data_dict_synthetic.json
  int64_t train_frames = 0;
  int64_t val_frames = 0;
  int64_t test_frames = 0;
  int64_t segments = 0;
  int64_t lanes = 0;  // centerlines or lane segments
  int64_t areas = 0;
  int64_t traffic_elements = 0;
  int64_t images = 0;
};

// Writes a small OpenLane-V2 dataset in the on-disk format of options.subset and options.format
// under options.out: the collection `data_dict_synthetic.json` (splits train, val, and test when
// asked for) and per frame its info JSON and the subset's camera JPEGs (7 or 6). Everything derives
// from options.seed. Bad options are input errors; files that cannot be written are runtime errors
// naming the path.
SyntheticDataSummary make_synthetic_data(const SyntheticDataOptions& options);

}  // namespace olv2::synthetic
