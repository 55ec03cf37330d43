// The JSON results file (spec/evaluation.md §2): writer format, lossless round trip, and the
// reader's errors, each naming the frame.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "olv2/evaluation/results_reader.h"
#include "olv2/evaluation/results_writer.h"
#include "olv2/util/error.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

FramePrediction two_lanes_one_element() {
  FramePrediction p;
  p.frame = {"val", "00492", "315967376899927209"};
  p.lanes = {{{{1.0f / 3.0f, -2.5f, 0.125f}, {10.0f, 1e-7f, -3.75f}}, 0.87654321f},
             {{{0.0f, 0.0f, 0.0f}}, 0.1f}};
  p.traffic_elements = {{{900.25f, 300.5f, 940.0f, 380.75f}, 3, 0.6666667f}};
  p.topology_lclc = {0.1f, 0.9f, 0.0f, 0.2f};
  p.topology_lcte = {0.7f, 0.05f};
  return p;
}

FramePrediction empty_frame(const std::string& timestamp) {
  FramePrediction p;
  p.frame = {"val", "00001", timestamp};
  return p;
}

std::string written(const std::vector<FramePrediction>& predictions) {
  std::ostringstream out;
  write_results(out, predictions);
  return out.str();
}

void expect_same(const FramePrediction& a, const FramePrediction& b) {
  EXPECT_EQ(a.frame, b.frame);
  ASSERT_EQ(a.lanes.size(), b.lanes.size());
  for (std::size_t i = 0; i < a.lanes.size(); ++i) {
    EXPECT_EQ(a.lanes[i].points, b.lanes[i].points);
    EXPECT_EQ(a.lanes[i].confidence, b.lanes[i].confidence);
  }
  ASSERT_EQ(a.traffic_elements.size(), b.traffic_elements.size());
  for (std::size_t j = 0; j < a.traffic_elements.size(); ++j) {
    EXPECT_EQ(a.traffic_elements[j].box, b.traffic_elements[j].box);
    EXPECT_EQ(a.traffic_elements[j].attribute, b.traffic_elements[j].attribute);
    EXPECT_EQ(a.traffic_elements[j].confidence, b.traffic_elements[j].confidence);
  }
  EXPECT_EQ(a.topology_lclc, b.topology_lclc);
  EXPECT_EQ(a.topology_lcte, b.topology_lcte);
}

TEST(ResultsFile, RoundTripIsExactInFloat32) {
  const std::vector<FramePrediction> frames = {two_lanes_one_element(), empty_frame("7")};
  const std::vector<FramePrediction> back = parse_results(written(frames), "memory");
  ASSERT_EQ(back.size(), 2u);
  expect_same(back[0], frames[0]);
  expect_same(back[1], frames[1]);
}

TEST(ResultsFile, EmptyFrameHasAllFourMembers) {
  EXPECT_NE(written({empty_frame("7")})
                .find("\"val/00001/7\": {\"predictions\": {\"lane_centerline\": [], "
                      "\"traffic_element\": [], \"topology_lclc\": [], \"topology_lcte\": []}}"),
            std::string::npos);
}

TEST(ResultsFile, LanesWithoutElementsWriteEmptyRows) {
  FramePrediction p = two_lanes_one_element();
  p.traffic_elements.clear();
  p.topology_lcte.clear();
  EXPECT_NE(written({p}).find("\"topology_lcte\": [[], []]"), std::string::npos);
  expect_same(parse_results(written({p}), "memory").at(0), p);
}

TEST(ResultsFile, IdsAreIntegersAndNumbersHaveNineDigits) {
  const std::string text = written({two_lanes_one_element()});
  EXPECT_NE(text.find("{\"id\": 1000, \"points\": [[0.333333343, -2.5, 0.125]"), std::string::npos)
      << text;
  EXPECT_NE(text.find("{\"id\": 2000, \"attribute\": 3, \"points\": [[900.25, 300.5], [940, "
                      "380.75]], \"confidence\": 0.666666687}"),
            std::string::npos)
      << text;
}

TEST(ResultsFile, WriterRefusesNonFiniteNumbers) {
  FramePrediction p = two_lanes_one_element();
  p.topology_lclc[1] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(written({p}), Error);
}

TEST(ResultsFile, WriteFileThenReadItInGroundTruthOrder) {
  const std::filesystem::path path = test::scratch_dir("results_file") / "results.json";
  const std::vector<FramePrediction> frames = {two_lanes_one_element(), empty_frame("7")};
  write_results_file(path, frames, method_only("unit test"));
  const std::vector<FramePrediction> back =
      read_results_file(path, {frames[1].frame, frames[0].frame});
  ASSERT_EQ(back.size(), 2u);
  expect_same(back[0], frames[1]);
  expect_same(back[1], frames[0]);
}

// Parses `text` and expects an input error whose message contains every one of `parts`.
void expect_input_error(const std::string& text, const std::vector<std::string>& parts) {
  try {
    parse_results(text, "r.json");
    FAIL() << "expected an input error for " << text;
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    for (const std::string& part : parts) {
      EXPECT_NE(std::string(error.what()).find(part), std::string::npos)
          << "`" << part << "` not in: " << error.what();
    }
  }
}

const std::string kEmptyPredictions =
    R"({"predictions": {"lane_centerline": [], "traffic_element": [], "topology_lclc": [], )"
    R"("topology_lcte": []}})";

std::string one_lane_frame(const std::string& lane, const std::string& lclc) {
  return R"({"results": {"val/1/2": {"predictions": {"lane_centerline": [)" + lane +
         R"(], "traffic_element": [], "topology_lclc": )" + lclc + R"(, "topology_lcte": [[]]}}}})";
}

TEST(ResultsReader, NamesTheFrameOfABadMatrixShape) {
  const std::string lane = R"({"id": 1, "points": [[0, 0, 0]], "confidence": 0.5})";
  expect_input_error(one_lane_frame(lane, "[[0.5, 0.5]]"), {"r.json", "val/1/2", "topology_lclc"});
  expect_input_error(one_lane_frame(lane, "[]"), {"val/1/2", "topology_lclc"});
}

TEST(ResultsReader, RejectsNonFiniteAndNonNumericValues) {
  const std::string lclc = "[[0.5]]";
  expect_input_error(
      one_lane_frame(R"({"id": 1, "points": [[0, 0, 1e999]], "confidence": 0.5})", lclc),
      {"val/1/2", "1e999"});
  expect_input_error(
      one_lane_frame(R"({"id": 1, "points": [[0, 0, 0]], "confidence": 1e39})", lclc),
      {"val/1/2", "confidence"});
  expect_input_error(
      one_lane_frame(R"({"id": 1, "points": [[0, 0, "x"]], "confidence": 0.5})", lclc),
      {"val/1/2", "points"});
  expect_input_error(
      one_lane_frame(R"({"id": 1.5, "points": [[0, 0, 0]], "confidence": 0.5})", lclc),
      {"val/1/2", "id"});
}

TEST(ResultsReader, RejectsLanesWithoutPoints) {
  expect_input_error(one_lane_frame(R"({"id": 1, "points": [], "confidence": 0.5})", "[[0.5]]"),
                     {"val/1/2", "points"});
}

TEST(ResultsReader, RejectsDuplicateIdsAcrossLanesAndElements) {
  const std::string text =
      R"({"results": {"val/1/2": {"predictions": {"lane_centerline": [{"id": 7, "points": [[0, 0, 0]], "confidence": 0.5}],)"
      R"( "traffic_element": [{"id": 7, "attribute": 1, "points": [[0, 0], [1, 1]], "confidence": 0.5}],)"
      R"( "topology_lclc": [[0.5]], "topology_lcte": [[0.5]]}}}})";
  expect_input_error(text, {"val/1/2", "id 7"});
}

TEST(ResultsReader, RejectsInvertedBoxes) {
  const std::string text =
      R"({"results": {"val/1/2": {"predictions": {"lane_centerline": [],)"
      R"( "traffic_element": [{"id": 7, "attribute": 1, "points": [[5, 0], [1, 1]], "confidence": 0.5}],)"
      R"( "topology_lclc": [], "topology_lcte": []}}}})";
  expect_input_error(text, {"val/1/2", "x1 <= x2"});
}

TEST(ResultsReader, RejectsAMissingPredictionMember) {
  expect_input_error(
      R"({"results": {"val/1/2": {"predictions": {"lane_centerline": [], "traffic_element": [], "topology_lclc": []}}}})",
      {"val/1/2", "topology_lcte", "missing"});
}

TEST(ResultsReader, RejectsDuplicateFrames) {
  expect_input_error(R"({"results": {"val/1/2": )" + kEmptyPredictions + R"(, "val/1/2": )" +
                         kEmptyPredictions + "}}",
                     {"val/1/2", "twice"});
}

TEST(ResultsReader, RejectsMalformedKeysAndFiles) {
  expect_input_error(R"({"results": {"val/1": )" + kEmptyPredictions + "}}", {"val/1"});
  expect_input_error(R"({"results": {"val/1/2/3": )" + kEmptyPredictions + "}}", {"val/1/2/3"});
  expect_input_error(R"({"results": {"val/1/2": )" + kEmptyPredictions, {"r.json", "malformed"});
  expect_input_error(R"({"method": "m"})", {"results"});
  expect_input_error(R"([1, 2])", {"top level"});
  expect_input_error(R"({"authors": "me", "results": {}})", {"authors"});
  // check_results raises on a country that ISO 3166 does not know.
  expect_input_error(R"({"country / region": "Atlantis", "results": {}})",
                     {"country / region", "Atlantis", "ISO 3166"});
  EXPECT_NO_THROW(parse_results(R"({"country / region": "de", "results": {}})", "r.json"));
}

TEST(ResultsReader, MissingAndExtraFramesAreNamed) {
  const std::vector<FramePrediction> read =
      parse_results(R"({"results": {"val/1/2": )" + kEmptyPredictions + "}}", "r.json");
  try {
    align_to_frames(read, {{"val", "1", "2"}, {"val", "1", "3"}}, "r.json");
    FAIL() << "expected an input error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("val/1/3"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("missing"), std::string::npos) << error.what();
  }
  try {
    align_to_frames(read, {}, "r.json");
    FAIL() << "expected an input error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("val/1/2"), std::string::npos) << error.what();
  }
}

TEST(ResultsReader, IgnoresUnknownMembersAndCategory) {
  const std::string text =
      R"({"method": "x", "extra": [1, {"a": 2}], "results": {"val/1/2": {"predictions": {"lane_centerline": [],)"
      R"( "traffic_element": [{"id": 7, "attribute": 12, "category": 2, "points": [[0, 0], [1, 1]], "confidence": 0.5, "note": "n"}],)"
      R"( "topology_lclc": [], "topology_lcte": []}}}})";
  const std::vector<FramePrediction> read = parse_results(text, "r.json");
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].traffic_elements.at(0).attribute, 12);
  EXPECT_EQ(read[0].frame, (FrameId{"val", "1", "2"}));
}

}  // namespace
}  // namespace olv2
