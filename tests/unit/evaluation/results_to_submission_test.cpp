// scripts/results_to_submission.py turns a results file written by the C++ writer into the
// official submission pickle: tuple keys, float32 arrays with explicit (empty) shapes.
#include <gtest/gtest.h>

#include <fstream>

#include "olv2/evaluation/results_writer.h"
#include "support/run_command.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

const char* const kPython = "/usr/bin/python3";

std::string script() {
  return (test::source_dir() / "scripts" / "results_to_submission.py").string();
}

std::vector<FramePrediction> sample_frames() {
  FramePrediction lanes_and_elements;
  lanes_and_elements.frame = {"val", "00492", "315967376899927209"};
  lanes_and_elements.lanes = {{{{0.5f, 1.0f, 0.0f}, {2.0f, 1.0f, 0.0f}}, 0.9f},
                              {{{0.0f, 0.0f, 0.0f}}, 0.4f}};
  lanes_and_elements.traffic_elements = {{{10, 20, 30, 60}, 4, 0.7f}};
  lanes_and_elements.topology_lclc = {0.1f, 0.9f, 0.2f, 0.3f};
  lanes_and_elements.topology_lcte = {0.8f, 0.05f};
  FramePrediction lanes_only = lanes_and_elements;
  lanes_only.frame.timestamp = "315967376899927210";
  lanes_only.traffic_elements.clear();
  lanes_only.topology_lcte.clear();
  FramePrediction elements_only;
  elements_only.frame = {"val", "00492", "315967376899927211"};
  elements_only.traffic_elements = lanes_and_elements.traffic_elements;
  return {lanes_and_elements, lanes_only, elements_only};
}

TEST(ResultsToSubmission, WritesTheOfficialStructure) {
  if (!std::ifstream(kPython)) {
    if (test::running_in_ci()) FAIL() << kPython << " not available under CI";
    GTEST_SKIP() << kPython << " not available";
  }
  const auto scratch = test::scratch_dir("results_to_submission");
  write_results_file(scratch / "results.json", sample_frames(), "unit test");
  const test::CommandResult convert = test::run_command(
      std::string(kPython) + " " + script() + " " + (scratch / "results.json").string() + " " +
      (scratch / "submission.pkl").string() + " --authors A B");
  ASSERT_EQ(convert.exit_status, 0) << convert.output;

  const std::string check = R"(
import pickle, sys
import numpy as np
s = pickle.load(open(sys.argv[1], 'rb'))
assert s['method'] == 'unit test' and s['authors'] == ['A', 'B'], s
r = s['results']
full = r[('val', '00492', '315967376899927209')]['predictions']
assert full['topology_lclc'].shape == (2, 2) and full['topology_lclc'].dtype == np.float32
assert full['topology_lcte'].shape == (2, 1)
assert full['lane_centerline'][0]['points'].shape == (2, 3)
assert full['lane_centerline'][0]['points'].dtype == np.float32
assert full['lane_centerline'][0]['confidence'] == np.float32(0.9)
assert full['traffic_element'][0]['points'].tolist() == [[10, 20], [30, 60]]
assert full['traffic_element'][0]['attribute'] == 4
assert r[('val', '00492', '315967376899927210')]['predictions']['topology_lcte'].shape == (2, 0)
empty = r[('val', '00492', '315967376899927211')]['predictions']
assert empty['topology_lclc'].shape == (0, 0) and empty['topology_lcte'].shape == (0, 1)
print('ok')
)";
  std::ofstream(scratch / "check.py") << check;
  const test::CommandResult verify =
      test::run_command(std::string(kPython) + " " + (scratch / "check.py").string() + " " +
                        (scratch / "submission.pkl").string());
  EXPECT_EQ(verify.exit_status, 0) << verify.output;
  EXPECT_NE(verify.output.find("ok"), std::string::npos) << verify.output;
}

TEST(ResultsToSubmission, MalformedResultsExitTwoNamingTheFrame) {
  if (!std::ifstream(kPython)) {
    if (test::running_in_ci()) FAIL() << kPython << " not available under CI";
    GTEST_SKIP() << kPython << " not available";
  }
  const auto scratch = test::scratch_dir("results_to_submission_bad");
  std::ofstream(scratch / "bad.json")
      << R"({"results": {"val/1/2": {"predictions": {"lane_centerline": [], )"
         R"("traffic_element": [], "topology_lclc": [[0.5]], "topology_lcte": []}}}})";
  const test::CommandResult convert =
      test::run_command(std::string(kPython) + " " + script() + " " +
                        (scratch / "bad.json").string() + " " + (scratch / "out.pkl").string());
  EXPECT_EQ(convert.exit_status, 2) << convert.output;
  EXPECT_NE(convert.output.find("val/1/2"), std::string::npos) << convert.output;
}

}  // namespace
}  // namespace olv2
