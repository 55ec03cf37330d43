#pragma once
// Writing predictions as the OpenLane-V2 leaderboard submission pickle, without Python.
#include <filesystem>
#include <ostream>
#include <vector>

#include "olv2/data/frame_prediction.h"
#include "olv2/evaluation/submission_metadata.h"

namespace olv2 {

// Writes predictions as the OpenLane-V2 leaderboard submission, the pickle that the devkit's
// `check_results` and `evaluate` read, without Python (pickle protocol 3, numpy arrays):
//
//   {'method': str, 'authors': [str], 'e-mail': str, 'institution / company': str,
//    'country / region': str,
//    'results': {(split, segment_id, timestamp): {'predictions': {
//        'lane_centerline': [{'id': int, 'points': float32 (n, 3), 'confidence': float32}],
//        'traffic_element': [{'id': int, 'attribute': int, 'points': float32 (2, 2),
//                             'confidence': float32}],
//        'topology_lclc': float32 (N, N),
//        'topology_lcte': float32 (N, M)}}}}
//
// and, for v2.x lane-segment frames, the devkit 2.x's members in place of the lanes and topology:
//   'lane_segment': [{'id': int, 'centerline', 'left_laneline', 'right_laneline': float32 (n, 3),
//                     'left_laneline_type', 'right_laneline_type': int, 'confidence': float32}],
//   'area': [{'id': int, 'category': int, 'points': float32 (n, 3), 'confidence': float32}],
//   'topology_lsls': float32 (N, N), 'topology_lste': float32 (N, M)
//
// Frames in the given order, ids as in results files (prediction_ids.h), confidences numpy
// float32 scalars; matrices keep their shape when a frame has no lanes or no traffic elements
// ((0, 0), (0, M), (N, 0)). Empty metadata members are left out (submission_metadata_problems()
// says whether the file is a valid submission). A lane without points, a non-finite number or
// a topology matrix of the wrong size is an error naming the frame. The file is written frame
// by frame, so its size costs no memory.
void write_submission(std::ostream& out, const std::vector<FramePrediction>& predictions,
                      const SubmissionMetadata& metadata);

// The same into `path`, which appears complete or not at all (write_file_atomic).
void write_submission_file(const std::filesystem::path& path,
                           const std::vector<FramePrediction>& predictions,
                           const SubmissionMetadata& metadata);

}  // namespace olv2
