// scripts/results_to_submission.py turns a results file written by the C++ writer into the
// official submission pickle: tuple keys, float32 arrays with explicit (empty) shapes, and the
// five metadata members that the devkit's `check_results` (OpenLane-V2,
// openlanev2/preprocessing/check.py; openlanev2/centerline/preprocessing/check.py in later
// versions) wants for a valid submission: `method`, `e-mail`, `institution / company`,
// `country / region` (strings, the country known to iso3166) and `authors` (a list of at most 10).
// The pickle is checked by that very function, taken from the original sources beside the
// checkout.
#include <gtest/gtest.h>

#include <fstream>

#include "olv2/evaluation/results_writer.h"
#include "support/run_command.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

const char* const kPython = "/usr/bin/python3";

#define OLV2_REQUIRE_PYTHON()                                                  \
  if (!std::ifstream(kPython)) {                                               \
    if (test::running_in_ci()) FAIL() << kPython << " not available under CI"; \
    GTEST_SKIP() << kPython << " not available";                               \
  }

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

SubmissionMetadata complete_metadata() {
  SubmissionMetadata metadata;
  metadata.method = "unit test";
  metadata.authors = {"A. Author", "B. Author"};
  metadata.e_mail = "a.author@example.org";
  metadata.institution = "Example Lab";
  metadata.country = "Germany";
  return metadata;
}

test::CommandResult convert(const fs::path& results, const fs::path& pickle,
                            const std::string& options = "") {
  return test::run_command(std::string(kPython) + " " + script() + " '" + results.string() + "' '" +
                           pickle.string() + "' " + options);
}

TEST(ResultsToSubmission, WritesTheOfficialStructure) {
  OLV2_REQUIRE_PYTHON();
  const auto scratch = test::scratch_dir("results_to_submission");
  write_results_file(scratch / "results.json", sample_frames(), complete_metadata());
  const test::CommandResult converted =
      convert(scratch / "results.json", scratch / "submission.pkl");
  ASSERT_EQ(converted.exit_status, 0) << converted.output;

  const std::string check = R"(
import pickle, sys
import numpy as np
s = pickle.load(open(sys.argv[1], 'rb'))
assert s['method'] == 'unit test' and s['authors'] == ['A. Author', 'B. Author'], s
assert s['e-mail'] == 'a.author@example.org' and s['institution / company'] == 'Example Lab'
assert s['country / region'] == 'Germany'
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

TEST(ResultsToSubmission, TheDevkitsCheckFindsAValidSubmission) {
  OLV2_REQUIRE_PYTHON();
  const fs::path reference = test::reference_dir();
  if (reference.empty()) {
    if (test::running_in_ci()) FAIL() << "the original sources are missing under CI";
    GTEST_SKIP() << "the original sources (../shared/reference/original) are not there";
  }
  const auto scratch = test::scratch_dir("results_to_submission_devkit");
  const test::CommandResult extracted =
      test::run_command("tar -xJf '" + (reference / "sources.tar.xz").string() + "' -C '" +
                        scratch.string() + "' OpenLane-V2/openlanev2/preprocessing/check.py");
  ASSERT_EQ(extracted.exit_status, 0) << extracted.output;
  write_results_file(scratch / "results.json", sample_frames(), complete_metadata());
  const test::CommandResult converted =
      convert(scratch / "results.json", scratch / "submission.pkl");
  ASSERT_EQ(converted.exit_status, 0) << converted.output;

  // check.py alone, without the package's __init__ (which imports the whole devkit).
  const std::string run_check = R"(
import importlib.util, pickle, sys
spec = importlib.util.spec_from_file_location('check', sys.argv[1])
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)
valid = check.check_results(pickle.load(open(sys.argv[2], 'rb')))
print('valid' if valid else 'not valid')
)";
  std::ofstream(scratch / "run_check.py") << run_check;
  const test::CommandResult checked =
      test::run_command(std::string(kPython) + " " + (scratch / "run_check.py").string() + " '" +
                        (scratch / "OpenLane-V2/openlanev2/preprocessing/check.py").string() +
                        "' '" + (scratch / "submission.pkl").string() + "'");
  ASSERT_EQ(checked.exit_status, 0) << checked.output;
  EXPECT_EQ(checked.output.find("Missing key"), std::string::npos) << checked.output;
  EXPECT_EQ(checked.output.find("not valid"), std::string::npos) << checked.output;
  EXPECT_NE(checked.output.find("valid"), std::string::npos) << checked.output;
}

TEST(ResultsToSubmission, MissingMetadataIsRefusedNamingEveryMissingMember) {
  OLV2_REQUIRE_PYTHON();
  const auto scratch = test::scratch_dir("results_to_submission_incomplete");
  SubmissionMetadata partial;
  partial.method = "unit test";
  partial.e_mail = "a.author@example.org";
  write_results_file(scratch / "results.json", sample_frames(), partial);
  const test::CommandResult refused = convert(scratch / "results.json", scratch / "submission.pkl");
  EXPECT_EQ(refused.exit_status, 2) << refused.output;
  for (const char* member : {"`authors`", "`institution / company`", "`country / region`"}) {
    EXPECT_NE(refused.output.find(member), std::string::npos) << member << "\n" << refused.output;
  }
  EXPECT_EQ(refused.output.find("`method`"), std::string::npos) << refused.output;
  EXPECT_EQ(refused.output.find("`e-mail`"), std::string::npos) << refused.output;
  EXPECT_FALSE(fs::exists(scratch / "submission.pkl"));

  // The options complete it.
  const test::CommandResult completed =
      convert(scratch / "results.json", scratch / "submission.pkl",
              "--authors 'A. Author' --institution 'Example Lab' --country DE");
  EXPECT_EQ(completed.exit_status, 0) << completed.output;
  EXPECT_TRUE(fs::exists(scratch / "submission.pkl"));
}

TEST(ResultsToSubmission, AnUnknownCountryOrTooManyAuthorsIsRefused) {
  OLV2_REQUIRE_PYTHON();
  const auto scratch = test::scratch_dir("results_to_submission_bad_metadata");
  write_results_file(scratch / "results.json", sample_frames(), complete_metadata());
  const test::CommandResult country =
      convert(scratch / "results.json", scratch / "out.pkl", "--country Atlantis");
  EXPECT_EQ(country.exit_status, 2) << country.output;
  EXPECT_NE(country.output.find("Atlantis"), std::string::npos) << country.output;
  EXPECT_NE(country.output.find("ISO 3166"), std::string::npos) << country.output;
  const test::CommandResult authors =
      convert(scratch / "results.json", scratch / "out.pkl", "--authors a b c d e f g h i j k");
  EXPECT_EQ(authors.exit_status, 2) << authors.output;
  EXPECT_NE(authors.output.find("`authors`"), std::string::npos) << authors.output;
  EXPECT_FALSE(fs::exists(scratch / "out.pkl"));
}

TEST(ResultsToSubmission, MalformedResultsExitTwoNamingTheFrame) {
  OLV2_REQUIRE_PYTHON();
  const auto scratch = test::scratch_dir("results_to_submission_bad");
  std::ofstream(scratch / "bad.json")
      << R"({"method": "m", "authors": ["a"], "e-mail": "e", "institution / company": "i", )"
         R"("country / region": "DE", "results": {"val/1/2": {"predictions": )"
         R"({"lane_centerline": [], "traffic_element": [], "topology_lclc": [[0.5]], )"
         R"("topology_lcte": []}}}})";
  const test::CommandResult converted = convert(scratch / "bad.json", scratch / "out.pkl");
  EXPECT_EQ(converted.exit_status, 2) << converted.output;
  EXPECT_NE(converted.output.find("val/1/2"), std::string::npos) << converted.output;
}

}  // namespace
}  // namespace olv2
