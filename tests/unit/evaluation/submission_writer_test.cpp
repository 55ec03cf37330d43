// The leaderboard submission pickle, written natively: read back by Python's pickle with numpy
// (numpy 1.x and 2.x) with every key, type, dtype and shape the devkit's `check_results` and
// `evaluate` read, accepted by that very `check_results` (from the original sources), and the
// metadata checks that keep an invalid submission from being written.
#include "olv2/evaluation/submission_writer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <limits>

#include "olv2/evaluation/iso3166.h"
#include "olv2/evaluation/submission_metadata.h"
#include "olv2/util/error.h"
#include "olv2/util/pth/pickle_emitter.h"
#include "support/python_numpy.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

std::vector<FramePrediction> submission_frames() {
  FramePrediction lanes_and_elements;
  lanes_and_elements.frame = {"val", "00492", "315967376899927209"};
  lanes_and_elements.lanes = {{{{0.5f, 1.0f, 0.0f}, {2.0f, 1.0f, -0.25f}}, 0.9f},
                              {{{0.0f, 0.0f, 0.0f}}, 0.4f}};
  lanes_and_elements.traffic_elements = {{{10, 20, 30, 60}, 4, 0.7f}};
  lanes_and_elements.topology_lclc = {0.1f, 0.9f, 0.2f, 0.3f};
  lanes_and_elements.topology_lcte = {0.8f, 0.05f};
  FramePrediction lanes_only = lanes_and_elements;
  lanes_only.frame.timestamp = "315967376899927210";
  lanes_only.traffic_elements.clear();
  lanes_only.topology_lcte.clear();
  FramePrediction elements_only;
  elements_only.frame = {"test", "10000", "315967376899927211"};
  elements_only.traffic_elements = lanes_and_elements.traffic_elements;
  FramePrediction nothing;
  nothing.frame = {"test", "10000", "315967376899927212"};
  return {lanes_and_elements, lanes_only, elements_only, nothing};
}

SubmissionMetadata complete_metadata() {
  SubmissionMetadata metadata;
  metadata.method = "unit test";
  metadata.authors = {"A. Author", "B. Author"};
  metadata.e_mail = "a.author@example.org";
  metadata.institution = "Example Lab";
  metadata.country = "Germany";
  return metadata;
}

const char* const kReadBack = R"(
import pickle, sys
import numpy as np
with open(sys.argv[1], 'rb') as file:
    s = pickle.load(file)
assert list(s) == ['method', 'authors', 'e-mail', 'institution / company', 'country / region',
                   'results'], list(s)
assert s['method'] == 'unit test' and s['authors'] == ['A. Author', 'B. Author'], s
assert s['e-mail'] == 'a.author@example.org' and s['institution / company'] == 'Example Lab'
assert s['country / region'] == 'Germany'
r = s['results']
assert list(r) == [('val', '00492', '315967376899927209'), ('val', '00492', '315967376899927210'),
                   ('test', '10000', '315967376899927211'), ('test', '10000', '315967376899927212')]
full = r[('val', '00492', '315967376899927209')]
assert list(full) == ['predictions']
full = full['predictions']
assert list(full) == ['lane_centerline', 'traffic_element', 'topology_lclc', 'topology_lcte']
lane = full['lane_centerline'][0]
assert list(lane) == ['id', 'points', 'confidence'] and type(lane['id']) is int
assert [l['id'] for l in full['lane_centerline']] == [1000, 1001]
assert type(lane['points']) is np.ndarray and lane['points'].dtype == np.float32
assert lane['points'].tolist() == [[0.5, 1.0, 0.0], [2.0, 1.0, -0.25]]
assert full['lane_centerline'][1]['points'].shape == (1, 3)
assert type(lane['confidence']) is np.float32 and lane['confidence'] == np.float32(0.9)
element = full['traffic_element'][0]
assert list(element) == ['id', 'attribute', 'points', 'confidence']
assert element['id'] == 2000 and type(element['attribute']) is int and element['attribute'] == 4
assert element['points'].dtype == np.float32 and element['points'].tolist() == [[10, 20], [30, 60]]
assert type(element['confidence']) is np.float32 and element['confidence'] == np.float32(0.7)
lclc = full['topology_lclc']
assert lclc.dtype == np.float32 and lclc.flags['C_CONTIGUOUS']
assert lclc.tolist() == np.array([[0.1, 0.9], [0.2, 0.3]], np.float32).tolist()
assert full['topology_lcte'].shape == (2, 1)
assert full['topology_lcte'].tolist() == np.array([[0.8], [0.05]], np.float32).tolist()
assert r[('val', '00492', '315967376899927210')]['predictions']['topology_lcte'].shape == (2, 0)
elements_only = r[('test', '10000', '315967376899927211')]['predictions']
assert elements_only['lane_centerline'] == []
assert elements_only['topology_lclc'].shape == (0, 0) and elements_only['topology_lcte'].shape == (0, 1)
nothing = r[('test', '10000', '315967376899927212')]['predictions']
assert nothing['topology_lclc'].shape == (0, 0) and nothing['topology_lcte'].shape == (0, 0)
assert nothing['topology_lcte'].dtype == np.float32
print('ok')
)";

class SubmissionReadBack : public ::testing::TestWithParam<std::string> {};

TEST_P(SubmissionReadBack, PythonFindsTheDevkitsStructure) {
  const std::string python = test::python_executable(GetParam());
  OLV2_REQUIRE_NUMPY(python);
  const fs::path scratch = test::scratch_dir("submission_" + GetParam());
  write_submission_file(scratch / "submission.pkl", submission_frames(), complete_metadata());
  const test::CommandResult read =
      test::run_python(python, kReadBack, {(scratch / "submission.pkl").string()}, scratch);
  EXPECT_EQ(read.exit_status, 0) << read.output;
  EXPECT_NE(read.output.find("ok"), std::string::npos) << read.output;
}

INSTANTIATE_TEST_SUITE_P(Pythons, SubmissionReadBack, ::testing::Values("debian", "venv"),
                         [](const auto& info) {
                           return info.param == "venv" ? std::string("Numpy2InVenv")
                                                       : std::string("DebianNumpy1");
                         });

TEST(SubmissionWriter, TheDevkitsCheckFindsAValidSubmission) {
  OLV2_REQUIRE_NUMPY(test::python_executable("debian"));
  OLV2_REQUIRE_DEVKIT_SOURCES();
  const fs::path scratch = test::scratch_dir("submission_devkit");
  write_submission_file(scratch / "submission.pkl", submission_frames(), complete_metadata());
  const test::CommandResult checked =
      test::run_devkit_check_results(scratch / "submission.pkl", scratch);
  ASSERT_EQ(checked.exit_status, 0) << checked.output;
  EXPECT_EQ(checked.output.find("Missing key"), std::string::npos) << checked.output;
  EXPECT_NE(checked.output.find("check_results: valid"), std::string::npos) << checked.output;

  // Without metadata the devkit reads the results but calls the submission incomplete.
  write_submission_file(scratch / "bare.pkl", submission_frames(), {});
  const test::CommandResult bare = test::run_devkit_check_results(scratch / "bare.pkl", scratch);
  ASSERT_EQ(bare.exit_status, 0) << bare.output;
  EXPECT_NE(bare.output.find("Missing key [method]"), std::string::npos) << bare.output;
  EXPECT_NE(bare.output.find("check_results: not valid"), std::string::npos) << bare.output;
}

TEST(SubmissionWriter, BadNumbersNameTheFrameAndLeaveNoFile) {
  const fs::path scratch = test::scratch_dir("submission_bad");
  std::vector<FramePrediction> frames = submission_frames();
  frames[1].lanes[0].confidence = std::numeric_limits<float>::quiet_NaN();
  try {
    write_submission_file(scratch / "out.pkl", frames, complete_metadata());
    ADD_FAILURE() << "a NaN confidence was written";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("val/00492/315967376899927210"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("lane confidence is not finite"), std::string::npos)
        << error.what();
  }
  frames = submission_frames();
  frames[0].topology_lcte.pop_back();
  try {
    write_submission_file(scratch / "out.pkl", frames, complete_metadata());
    ADD_FAILURE() << "a topology matrix of the wrong size was written";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("topology_lcte has 1 entries, expected 2 x 1"),
              std::string::npos)
        << error.what();
  }
  EXPECT_TRUE(fs::is_empty(scratch));
}

// More memoized objects than BINPUT's one-byte index holds: Python still resolves each.
TEST(PickleEmitter, MemoBeyondTwoHundredFiftySixEntries) {
  const std::string python = test::python_executable("debian");
  OLV2_REQUIRE_NUMPY(python);
  PickleEmitter pickle(3);
  pickle.op(PickleEmitter::kEmptyList);
  pickle.op(PickleEmitter::kMark);
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 300; ++i) {
      const std::string text = "item " + std::to_string(i);
      pickle.memoized(text, [&] { pickle.string(text); });
    }
  }
  pickle.op(PickleEmitter::kAppends);
  pickle.stop();
  const fs::path scratch = test::scratch_dir("pickle_memo");
  std::ofstream(scratch / "memo.pkl", std::ios::binary) << pickle.text();
  const test::CommandResult read = test::run_python(python, R"(
import pickle, sys
items = pickle.load(open(sys.argv[1], 'rb'))
expected = ['item %d' % i for i in range(300)] * 2
assert items == expected, items[:5]
print('ok')
)",
                                                    {(scratch / "memo.pkl").string()}, scratch);
  EXPECT_EQ(read.exit_status, 0) << read.output;
}

TEST(SubmissionMetadata, ProblemsNameEveryMemberTheLeaderboardLacks) {
  EXPECT_TRUE(submission_metadata_problems(complete_metadata()).empty());
  const std::vector<std::string> problems = submission_metadata_problems(method_only("m"));
  EXPECT_EQ(problems, (std::vector<std::string>{"`authors`: missing", "`e-mail`: missing",
                                                "`institution / company`: missing",
                                                "`country / region`: missing"}));
  SubmissionMetadata too_many = complete_metadata();
  too_many.authors.assign(11, "A");
  EXPECT_EQ(submission_metadata_problems(too_many),
            (std::vector<std::string>{"`authors`: 11 names, the leaderboard takes at most 10"}));
  SubmissionMetadata atlantis = complete_metadata();
  atlantis.country = "Atlantis";
  EXPECT_EQ(submission_metadata_problems(atlantis),
            (std::vector<std::string>{
                "`country / region`: 'Atlantis' is not an ISO 3166 country name or code"}));
}

// As Python's iso3166.countries.get, which the devkit asks: names in any case (non-ASCII
// letters too), alpha-2, alpha-3, numeric codes, and the apolitical names.
TEST(Iso3166, NamesAndCodesAsTheDevkitMatchesThem) {
  for (const char* known :
       {"Germany", "germany", "GERMANY", "de", "DEU", "deu", "276", "004", "Åland Islands",
        "åland islands", "Türkiye", "türkiye", "Côte d'Ivoire", "Taiwan",
        "Taiwan, Province of China", "United States of America", "US", "CN"}) {
    EXPECT_TRUE(is_iso3166_country(known)) << known;
  }
  for (const char* unknown : {"Atlantis", "", "000", "999", "XX", "XYZ", "Germany ", "U.S."}) {
    EXPECT_FALSE(is_iso3166_country(unknown)) << unknown;
  }
}

}  // namespace
}  // namespace olv2
