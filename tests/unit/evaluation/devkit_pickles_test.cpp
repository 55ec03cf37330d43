// Reading the devkit's pickles with the project's own unpickler: a submission written by
// test_ds comes back as it was written, one written by Python with numpy is read whatever its
// dtypes, check_results' rules are enforced naming the frame, and a pickle that calls anything
// outside the format is refused naming the global, without running it.
#include "olv2/evaluation/devkit_pickles.h"

#include <gtest/gtest.h>

#include <fstream>

#include "olv2/evaluation/submission_writer.h"
#include "olv2/util/error.h"
#include "support/python_numpy.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

std::vector<FramePrediction> two_frames() {
  FramePrediction first;
  first.frame = {"val", "00492", "315967376899927209"};
  first.lanes = {{{{0.5f, 1.0f, 0.0f}, {2.0f, 1.0f, -0.25f}}, 0.9f}, {{{0.0f, 0.0f, 0.0f}}, 0.4f}};
  first.traffic_elements = {{{10, 20, 30, 60}, 4, 0.7f}};
  first.topology_lclc = {0.1f, 0.9f, 0.2f, 0.3f};
  first.topology_lcte = {0.8f, 0.05f};
  FramePrediction second;
  second.frame = {"val", "00492", "315967376899927210"};
  return {first, second};
}

TEST(DevkitPickles, ASubmissionReadsBackAsWritten) {
  const fs::path scratch = test::scratch_dir("devkit_pickles_round_trip");
  const std::vector<FramePrediction> written = two_frames();
  SubmissionMetadata metadata;
  metadata.method = "m";
  metadata.country = "DE";
  write_submission_file(scratch / "submission.pkl", written, metadata);
  EXPECT_TRUE(is_pickle_file(scratch / "submission.pkl"));
  const std::vector<FramePrediction> read = read_submission_file(scratch / "submission.pkl");
  ASSERT_EQ(read.size(), written.size());
  for (std::size_t f = 0; f < read.size(); ++f) {
    EXPECT_EQ(read[f].frame, written[f].frame);
    ASSERT_EQ(read[f].lanes.size(), written[f].lanes.size());
    for (std::size_t i = 0; i < read[f].lanes.size(); ++i) {
      EXPECT_EQ(read[f].lanes[i].points, written[f].lanes[i].points);
      EXPECT_EQ(read[f].lanes[i].confidence, written[f].lanes[i].confidence);
    }
    ASSERT_EQ(read[f].traffic_elements.size(), written[f].traffic_elements.size());
    for (std::size_t j = 0; j < read[f].traffic_elements.size(); ++j) {
      EXPECT_EQ(read[f].traffic_elements[j].box, written[f].traffic_elements[j].box);
      EXPECT_EQ(read[f].traffic_elements[j].attribute, written[f].traffic_elements[j].attribute);
    }
    EXPECT_EQ(read[f].topology_lclc, written[f].topology_lclc);
    EXPECT_EQ(read[f].topology_lcte, written[f].topology_lcte);
  }
}

// Pickles that Python writes (protocol 4, memoized, numpy arrays of other dtypes): a valid one,
// ones breaking a rule of check_results, and one whose unpickling would run os.system.
const char* const kWritePickles = R"(
import copy, os, pickle, sys
import numpy as np
out = sys.argv[1]
frame = {'predictions': {
    'lane_centerline': [{'id': 7, 'points': np.array([[1, 2, 3], [4, 5, 6]], np.float64),
                         'confidence': 0.5},
                        {'id': 8, 'points': np.array([[1, 2, 3]], np.int32),
                         'confidence': np.float64(0.25)}],
    'traffic_element': [{'id': 9, 'attribute': np.int64(3),
                         'points': np.array([[1, 2], [3, 4]], np.float16),
                         'confidence': np.float32(0.75)}],
    'topology_lclc': np.array([[0, 1], [0, 0]], np.uint8),
    'topology_lcte': np.array([[0.5], [1]], np.float64)}}
def dump(name, results, **metadata):
    with open(os.path.join(out, name), 'wb') as f:
        pickle.dump(dict(metadata, results=results), f, protocol=4)
key = ('val', '00001', '315')
dump('valid.pkl', {key: frame}, method='m', authors=['a'])
bad = copy.deepcopy(frame); bad['predictions']['traffic_element'][0]['id'] = 7
dump('duplicate_id.pkl', {key: bad})
bad = copy.deepcopy(frame); bad['predictions']['lane_centerline'][0]['points'] = np.zeros((2, 2))
dump('lane_shape.pkl', {key: bad})
bad = copy.deepcopy(frame); bad['predictions']['topology_lcte'] = np.zeros((2, 2))
dump('topology_shape.pkl', {key: bad})
bad = copy.deepcopy(frame); del bad['predictions']['traffic_element'][0]['attribute']
dump('no_attribute.pkl', {key: bad})
bad = copy.deepcopy(frame); bad['predictions']['lane_centerline'][0]['points'] = [[1, 2, 3]]
dump('points_list.pkl', {key: bad})
dump('country.pkl', {key: frame}, **{'country / region': 'Atlantis'})
dump('authors.pkl', {key: frame}, authors=['a'] * 11)
dump('string_key.pkl', {'val/00001/315': frame})
class Shell:
    def __reduce__(self):
        return (os.system, ('touch ' + os.path.join(out, 'ran'),))
dump('foreign.pkl', {key: frame}, method=Shell())
)";

class DevkitPicklesFromPython : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = test::scratch_dir("devkit_pickles_python");
    const std::string python = test::python_executable("debian");
    OLV2_REQUIRE_NUMPY(python);
    const test::CommandResult written =
        test::run_python(python, kWritePickles, {scratch_.string()}, scratch_);
    ASSERT_EQ(written.exit_status, 0) << written.output;
  }

  // The message read_submission_file throws for `name`.
  std::string refusal(const std::string& name) const {
    try {
      read_submission_file(scratch_ / name);
    } catch (const Error& error) {
      EXPECT_EQ(error.status(), ExitStatus::kBadInput) << error.what();
      return error.what();
    }
    ADD_FAILURE() << name << " was read";
    return "";
  }

  fs::path scratch_;
};

TEST_F(DevkitPicklesFromPython, NumpyArraysOfAnyRealDtypeAreRead) {
  const std::vector<FramePrediction> read = read_submission_file(scratch_ / "valid.pkl");
  ASSERT_EQ(read.size(), 1u);
  const FramePrediction& frame = read[0];
  EXPECT_EQ(frame.frame, (FrameId{"val", "00001", "315"}));
  ASSERT_EQ(frame.lanes.size(), 2u);
  EXPECT_EQ(frame.lanes[0].points, (Polyline{{1, 2, 3}, {4, 5, 6}}));
  EXPECT_EQ(frame.lanes[1].points, (Polyline{{1, 2, 3}}));
  EXPECT_EQ(frame.lanes[1].confidence, 0.25f);
  ASSERT_EQ(frame.traffic_elements.size(), 1u);
  EXPECT_EQ(frame.traffic_elements[0].box, (std::array<float, 4>{1, 2, 3, 4}));
  EXPECT_EQ(frame.traffic_elements[0].attribute, 3);
  EXPECT_EQ(frame.traffic_elements[0].confidence, 0.75f);
  EXPECT_EQ(frame.topology_lclc, (std::vector<float>{0, 1, 0, 0}));
  EXPECT_EQ(frame.topology_lcte, (std::vector<float>{0.5f, 1}));
}

TEST_F(DevkitPicklesFromPython, TheRulesOfCheckResultsNameTheFrame) {
  const std::string frame = "frame val/00001/315";
  for (const auto& [file, expected] : std::vector<std::pair<std::string, std::string>>{
           {"duplicate_id.pkl", "ids are not unique in the frame"},
           {"lane_shape.pkl", "lane_centerline[0].points: expected a numpy array of shape (n, 3)"},
           {"topology_shape.pkl", "topology_lcte: expected a numpy array of shape"},
           {"no_attribute.pkl", "traffic_element[0]: key `attribute` missing"},
           {"points_list.pkl", "points: expected a numpy array of shape (n, 3), got list"}}) {
    const std::string message = refusal(file);
    EXPECT_NE(message.find(frame), std::string::npos) << file << ": " << message;
    EXPECT_NE(message.find(expected), std::string::npos) << file << ": " << message;
  }
  EXPECT_NE(refusal("country.pkl").find("'Atlantis' is not an ISO 3166 country"),
            std::string::npos);
  EXPECT_NE(refusal("authors.pkl").find("11 names, the leaderboard takes at most 10"),
            std::string::npos);
  EXPECT_NE(refusal("string_key.pkl")
                .find("key val/00001/315: expected a (split, segment_id, timestamp) tuple"),
            std::string::npos);
}

TEST_F(DevkitPicklesFromPython, AGlobalOutsideTheFormatIsRefusedAndNeverRun) {
  const std::string message = refusal("foreign.pkl");
  EXPECT_NE(message.find("posix.system"), std::string::npos) << message;
  EXPECT_NE(message.find("which the format does not"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(scratch_ / "ran"));
}

}  // namespace
}  // namespace olv2
