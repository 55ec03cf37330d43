#pragma once
// Writing predictions as a JSON results file, with the submission metadata first.
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "olv2/data/frame_prediction.h"
#include "olv2/evaluation/submission_metadata.h"

namespace olv2 {

// Writes predictions in the JSON results format (spec/evaluation.md §2): one member
// "<split>/<segment_id>/<timestamp>" per frame, in the given order, each with all four prediction
// members (v2.x frames: `lane_segment` with both lanelines and their types, `area`,
// `traffic_element`, `topology_lsls`, `topology_lste`, as the devkit 2.x names them); numbers with
// 9 significant digits so float32 values round-trip; `[]` topology when a frame has no lanes; the
// ids of prediction_ids.h. A non-finite number or a topology matrix of the wrong size is an error
// naming the frame. The non-empty members of `metadata` come first, under the official keys
// (`method`, `authors`, `e-mail`, `institution / company`, `country / region`).
void write_results(std::ostream& out, const std::vector<FramePrediction>& predictions,
                   const SubmissionMetadata& metadata = {});

// The same into `path` (write_file_atomic: a temporary file beside it, flushed, then renamed).
void write_results_file(const std::filesystem::path& path,
                        const std::vector<FramePrediction>& predictions,
                        const SubmissionMetadata& metadata = {});

}  // namespace olv2
