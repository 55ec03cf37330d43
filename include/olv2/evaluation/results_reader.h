#pragma once
// Reading JSON results files strictly, and ordering their predictions like a split's frames.
#include <filesystem>
#include <string>
#include <vector>

#include "olv2/data/frame_prediction.h"

namespace olv2 {

// Parses a JSON results file (spec/evaluation.md §2) strictly: a malformed key, a missing
// prediction member, a wrong matrix shape, a non-integer id or attribute, duplicate ids within a
// frame, a duplicate frame, an inverted box or a non-finite number is an input error naming the
// file and the frame. Frames come back in file order. `source` names the text in errors.
std::vector<FramePrediction> parse_results(const std::string& text, const std::string& source);

// Reads and parses a results file.
std::vector<FramePrediction> read_results_file(const std::filesystem::path& path);

// Reads a results file that must hold exactly `frames` (no missing, no extra frame) and returns
// its predictions in the order of `frames`.
std::vector<FramePrediction> read_results_file(const std::filesystem::path& path,
                                               const std::vector<FrameId>& frames);

// Orders `predictions` like `frames`; a missing or extra frame is an input error naming it.
std::vector<FramePrediction> align_to_frames(std::vector<FramePrediction> predictions,
                                             const std::vector<FrameId>& frames,
                                             const std::string& source);

}  // namespace olv2
