#pragma once
// The OpenLane-V2 devkit's pickles, leaderboard submissions and ground-truth collections, read
// without running Python.
#include <filesystem>
#include <string>
#include <vector>

#include "olv2/data/frame_prediction.h"
#include "olv2/evaluation/ground_truth.h"

namespace olv2 {

// The devkit's two pickles, read by the project's own unpickler (util/pth): no Python code
// runs, and a pickle that calls anything but numpy's array, scalar and dtype reconstruction
// (and the few builtins pickles of plain data use) is an input error naming the global.

// A leaderboard submission (what `test_ds --out` writes and other projects submit): `results`
// keyed by (split, segment_id, timestamp) tuples, each frame's `predictions` with numpy arrays
// of any int or float dtype and confidences as Python or numpy numbers. Every rule of the
// devkit's `check_results` is enforced (the metadata members' types, at most 10 authors, an
// ISO 3166 country, `results` a dict of dicts with `predictions`, both instance lists with
// `id`, `points` and `confidence` (and `attribute`), lane points (n, 3) and boxes (2, 2) arrays,
// ids unique within a frame, topology arrays (N, N) and (N, M)), each broken one an input error
// naming the file, the frame and the rule. v2.x lane-segment frames (`lane_segment`, `area`,
// `topology_lsls`, `topology_lste`, as the devkit 2.x evaluation reads them) are read alike, their
// ids unique within each list. The frames come back in file order.
std::vector<FramePrediction> read_submission_file(const std::filesystem::path& path);

// The ground-truth collection (`data_dict_subset_A_val.pkl` as the devkit's preprocess.py
// writes it: {(split, segment_id, timestamp): info with numpy arrays}, lane points already
// subsampled), or the devkit 2.x's lane-segment collection (`*_ls.pkl`): the annotated frames of
// `split` in file order. A frame of the split without
// `annotation`, or one whose arrays do not fit (lane points (n, 3), boxes (2, 2), attributes
// 0..12, topology (N, N) and (N, M) of 0/1), is an input error naming it.
std::vector<FrameGroundTruth> read_ground_truth_file(const std::filesystem::path& path,
                                                     const std::string& split);

// True when the file starts like a pickle (protocol 2 or later), not like JSON.
bool is_pickle_file(const std::filesystem::path& path);

}  // namespace olv2
