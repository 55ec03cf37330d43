// Every kind of bad input is an error naming the file at fault and what is wrong.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "olv2/config/config_loader.h"
#include "olv2/data/dataset.h"
#include "olv2/data/dataset_check.h"
#include "olv2/data/frame_reader.h"
#include "olv2/data/image_io.h"
#include "olv2/data/pipeline.h"
#include "olv2/util/error.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

const char* kSplit = "train";
const char* kSegment = "00042";
const char* kTimestamp = "315000000000000001";
const std::vector<std::string> kCameras = subset_camera_names(Subset::kA);

std::string image_rel_path(const std::string& camera) {
  return std::string(kSplit) + "/" + kSegment + "/image/" + camera + "/" + kTimestamp + ".jpg";
}

// A small valid frame: the seven cameras, three lanes of 5 points, two traffic elements.
Json valid_frame() {
  Json frame;
  frame["version"] = "v1.0";
  frame["segment_id"] = kSegment;
  frame["timestamp"] = std::stoll(kTimestamp);
  Json sensor = Json::object();
  for (const std::string& camera : kCameras) {
    sensor[camera] = {
        {"image_path", image_rel_path(camera)},
        {"extrinsic",
         {{"rotation", {{0, 0, 1}, {-1, 0, 0}, {0, -1, 0}}}, {"translation", {1.5, 0, 1.4}}}},
        {"intrinsic", {{"K", {{100, 0, 16}, {0, 100, 12}, {0, 0, 1}}}, {"distortion", {0, 0, 0}}}}};
  }
  frame["sensor"] = sensor;
  frame["pose"] = {{"rotation", {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, {"translation", {10, 20, 0}}};
  Json lanes = Json::array();
  for (int i = 0; i < 3; ++i) {
    Json points = Json::array();
    for (int p = 0; p < 5; ++p) points.push_back({p * 2.0, i * 3.5, 0.0});
    lanes.push_back({{"id", 100 + i}, {"points", points}, {"is_intersection_or_connector", false}});
  }
  Json elements = Json::array();
  for (int k = 0; k < 2; ++k) {
    elements.push_back({{"id", 200 + k},
                        {"category", 1},
                        {"attribute", k + 1},
                        {"points", {{1.0 + k, 2.0}, {3.0 + k, 6.0}}}});
  }
  frame["annotation"] = {{"lane_centerline", lanes},
                         {"traffic_element", elements},
                         {"topology_lclc", {{0, 1, 0}, {0, 0, 1}, {0, 0, 0}}},
                         {"topology_lcte", {{1, 0}, {0, 1}, {0, 0}}}};
  return frame;
}

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = test::scratch_dir("data");
    const fs::path collection = root_ / "data_dict_tiny.json";
    std::ofstream(collection)
        << Json{{kSplit, {{kSegment, {std::string(kTimestamp) + ".json"}}}}}.dump();
    for (const std::string& camera : kCameras) {
      fs::create_directories((root_ / image_rel_path(camera)).parent_path());
      cv::Mat image(24, 32, CV_8UC3, cv::Scalar(40, 120, 200));
      ASSERT_TRUE(cv::imwrite((root_ / image_rel_path(camera)).string(), image));
    }
    write_frame(valid_frame());
  }

  fs::path frame_path() const { return frame_info_path(root_, {kSplit, kSegment, kTimestamp}); }
  fs::path image_path(size_t camera) const { return root_ / image_rel_path(kCameras[camera]); }
  void write_frame(const Json& frame) const { write_text(frame_path(), frame.dump()); }
  static void write_text(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
  }
  Frame read() const { return read_frame(root_, {kSplit, kSegment, kTimestamp}, {}); }

  // The message of the input error read() throws.
  std::string read_error() const {
    try {
      read();
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), ExitStatus::kBadInput);
      return e.what();
    }
    ADD_FAILURE() << "expected an error";
    return "";
  }

  // Runs Load on the frame and returns the error message.
  std::string load_error() const {
    const Pipeline pipeline = build_pipeline(parse_yaml(
        "- {type: CustomLoadMultiViewImageFromFiles, to_float32: true}\n", "pipeline.yaml"));
    std::mt19937_64 rng(0);
    try {
      pipeline.run_data(read(), root_.string(), rng);
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), ExitStatus::kBadInput);
      return e.what();
    }
    ADD_FAILURE() << "expected an error";
    return "";
  }

  fs::path root_;
};

#define EXPECT_MESSAGE_HAS(message, text) \
  EXPECT_NE((message).find(text), std::string::npos) << (message)

TEST_F(BadInput, ValidFrameReads) {
  const Frame frame = read();
  ASSERT_EQ(frame.cameras.size(), kCameras.size());
  EXPECT_EQ(frame.cameras[0].name, kCameras[0]);
  EXPECT_EQ(frame.num_lanes(), 3u);
  EXPECT_EQ(frame.lanes[1].num_points(), 5);
  EXPECT_EQ(frame.num_traffic_elements(), 2u);
  EXPECT_EQ(frame.lclc(1, 2), 1);
  EXPECT_EQ(frame.lcte(1, 1), 1);
  EXPECT_EQ(frame.traffic_elements[1].attribute, 2);
  const Pipeline load =
      build_pipeline(parse_yaml("- {type: CustomLoadMultiViewImageFromFiles}\n", "pipeline.yaml"));
  std::mt19937_64 rng(0);
  EXPECT_EQ(load.run_data(frame, root_.string(), rng).images.size(), kCameras.size());
}

TEST_F(BadInput, MalformedJsonNamesTheFrame) {
  write_text(frame_path(), "{\"sensor\": {");
  const std::string message = read_error();
  EXPECT_MESSAGE_HAS(message, frame_path().string());
  EXPECT_MESSAGE_HAS(message, "malformed JSON");
}

TEST_F(BadInput, MissingKeyIsNamed) {
  Json frame = valid_frame();
  frame.erase("pose");
  write_frame(frame);
  const std::string missing = read_error();
  EXPECT_MESSAGE_HAS(missing, frame_path().string());
  EXPECT_MESSAGE_HAS(missing, "`pose`");
}

TEST_F(BadInput, IllTypedKeyIsNamed) {
  Json frame = valid_frame();
  frame["sensor"]["ring_front_left"]["intrinsic"]["K"] = "not a matrix";
  write_frame(frame);
  const std::string message = read_error();
  EXPECT_MESSAGE_HAS(message, frame_path().string());
  EXPECT_MESSAGE_HAS(message, "sensor.ring_front_left.intrinsic.K");
}

TEST_F(BadInput, WrongMatrixSizeIsNamed) {
  Json frame = valid_frame();
  frame["sensor"]["ring_front_center"]["extrinsic"]["rotation"] = {{1, 0, 0}, {0, 1, 0}};
  write_frame(frame);
  const std::string message = read_error();
  EXPECT_MESSAGE_HAS(message, "sensor.ring_front_center.extrinsic.rotation");
  EXPECT_MESSAGE_HAS(message, "3x3");
}

TEST_F(BadInput, TopologyMustFitTheLaneAndElementCounts) {
  Json frame = valid_frame();
  frame["annotation"]["topology_lclc"] = {{0, 1, 0}, {0, 0, 1}};
  write_frame(frame);
  EXPECT_MESSAGE_HAS(read_error(), "annotation.topology_lclc");

  frame = valid_frame();
  frame["annotation"]["topology_lcte"] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 0}};
  write_frame(frame);
  const std::string message = read_error();
  EXPECT_MESSAGE_HAS(message, "annotation.topology_lcte");
  EXPECT_MESSAGE_HAS(message, "expected 2");
}

TEST_F(BadInput, CamerasMustBeTheSevenOfOpenLaneV2) {
  Json frame = valid_frame();
  frame["sensor"].erase("ring_side_right");
  write_frame(frame);
  std::string message = read_error();
  EXPECT_MESSAGE_HAS(message, frame_path().string());
  EXPECT_MESSAGE_HAS(message, "key `sensor`");
  EXPECT_MESSAGE_HAS(message, "camera `ring_side_right` missing");

  frame = valid_frame();
  frame["sensor"]["ring_front_centre"] = frame["sensor"]["ring_front_center"];
  write_frame(frame);
  message = read_error();
  EXPECT_MESSAGE_HAS(message, "key `sensor.ring_front_centre`: unknown camera");
  EXPECT_MESSAGE_HAS(message,
                     "expected the 7 cameras of subset A (ring_front_center, ring_front_left");
  EXPECT_MESSAGE_HAS(message, "or the 6 of subset B (CAM_FRONT, CAM_FRONT_RIGHT");
}

// valid_frame() with subset B's six nuScenes cameras in place of subset A's seven.
Json subset_b_frame() {
  Json frame = valid_frame();
  const Json camera = frame["sensor"]["ring_front_center"];
  Json sensor = Json::object();
  for (const std::string& name : subset_camera_names(Subset::kB)) sensor[name] = camera;
  frame["sensor"] = sensor;
  return frame;
}

// Subset B's frames are read like subset A's; the set says which subset a frame is of, and a
// frame may not mix them.
TEST_F(BadInput, SubsetBFramesHaveTheSixNuScenesCamerasAndNoMix) {
  write_frame(subset_b_frame());
  const Frame parsed = read();
  EXPECT_EQ(parsed.subset, Subset::kB);
  ASSERT_EQ(parsed.cameras.size(), 6u);
  EXPECT_EQ(parsed.cameras[0].name, "CAM_FRONT");

  Json frame = subset_b_frame();
  frame["sensor"]["ring_side_left"] = frame["sensor"]["CAM_BACK"];
  write_frame(frame);
  std::string message = read_error();
  EXPECT_MESSAGE_HAS(message, "key `sensor.ring_side_left`: a camera of the other subset");
  EXPECT_MESSAGE_HAS(message, "not a mix");

  frame = subset_b_frame();
  frame["sensor"].erase("CAM_BACK_LEFT");
  write_frame(frame);
  EXPECT_MESSAGE_HAS(read_error(),
                     "camera `CAM_BACK_LEFT` missing, expected the cameras of "
                     "subset B: CAM_FRONT, CAM_FRONT_RIGHT");

  frame = subset_b_frame();
  Json reordered = Json::object();
  reordered["CAM_BACK"] = frame["sensor"]["CAM_BACK"];
  for (const auto& [name, value] : frame["sensor"].items()) reordered[name] = value;
  frame["sensor"] = reordered;
  write_frame(frame);
  message = read_error();
  EXPECT_MESSAGE_HAS(message, "the first camera is CAM_BACK, expected CAM_FRONT");
}

// One split holds one subset: the frame of the other subset is named.
TEST_F(BadInput, ACollectionMixingTheSubsetsIsRefusedNamingTheFrame) {
  const char* second = "315000000000000002";
  std::ofstream(root_ / "data_dict_mixed.json")
      << Json{{kSplit,
               {{kSegment, {std::string(kTimestamp) + ".json", std::string(second) + ".json"}}}}}
             .dump();
  write_text(frame_info_path(root_, {kSplit, kSegment, second}), subset_b_frame().dump());
  const FrameIndex index(root_, root_ / "data_dict_mixed.json", kSplit);
  EXPECT_EQ(index.load(0).subset, Subset::kA);
  try {
    index.load(1);
    ADD_FAILURE() << "a subset-B frame after a subset-A frame was read";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_MESSAGE_HAS(message, std::string(second) + ".json");
    EXPECT_MESSAGE_HAS(message, "the cameras of subset B, but other frames of split `train`");
    EXPECT_MESSAGE_HAS(message, "are of subset A: a collection holds one subset");
  }
  EXPECT_EQ(index.load(0).subset, Subset::kA);
}

TEST_F(BadInput, TheFrontCameraMustComeFirst) {
  Json frame = valid_frame();
  Json sensor = Json::object();
  for (size_t i = 1; i <= kCameras.size(); ++i) {
    const std::string& name = kCameras[i % kCameras.size()];
    sensor[name] = frame["sensor"][name];
  }
  frame["sensor"] = sensor;
  write_frame(frame);
  const std::string message = read_error();
  EXPECT_MESSAGE_HAS(message, "key `sensor`: the first camera is ring_front_left");
  EXPECT_MESSAGE_HAS(message, "expected ring_front_center");
}

TEST_F(BadInput, AKeyWrittenTwiceIsNamed) {
  std::string text = valid_frame().dump();
  const std::string needle = "\"sensor\":{";
  text.replace(text.find(needle), needle.size(), needle + "\"ring_front_left\":{},");
  write_text(frame_path(), text);
  const std::string message = read_error();
  EXPECT_MESSAGE_HAS(message, frame_path().string());
  EXPECT_MESSAGE_HAS(message, "key `sensor.ring_front_left`: written twice");

  text = valid_frame().dump();
  const std::string lanes = "\"lane_centerline\":[{";
  text.replace(text.find(lanes), lanes.size(), lanes + "\"id\":7,");
  write_text(frame_path(), text);
  EXPECT_MESSAGE_HAS(read_error(), "key `annotation.lane_centerline[0].id`: written twice");
}

// The format gives each lane centerline and each traffic element its own id within a frame.
TEST_F(BadInput, DuplicateIdsAreRefusedByTheReaderAndCheckData) {
  Json frame = valid_frame();
  frame["annotation"]["lane_centerline"][2]["id"] = 100;
  write_frame(frame);
  std::string message = read_error();
  EXPECT_MESSAGE_HAS(message, frame_path().string());
  EXPECT_MESSAGE_HAS(message,
                     "key `annotation.lane_centerline[2].id`: duplicate id 100, also the "
                     "id of lane_centerline[0]");
  const DatasetCheckReport report =
      check_dataset(FrameIndex(root_, root_ / "data_dict_tiny.json", kSplit), {});
  ASSERT_EQ(report.problems.count("invalid frame"), 1u);
  EXPECT_MESSAGE_HAS(report.examples.at("invalid frame").at(0), "duplicate id 100");

  frame = valid_frame();
  frame["annotation"]["traffic_element"][1]["id"] = 200;
  write_frame(frame);
  EXPECT_MESSAGE_HAS(read_error(), "key `annotation.traffic_element[1].id`: duplicate id 200");

  // Lanes and traffic elements are counted apart: a lane may share an element's id.
  frame = valid_frame();
  frame["annotation"]["traffic_element"][0]["id"] = 100;
  write_frame(frame);
  EXPECT_EQ(read().traffic_elements.at(0).id, 100);
}

TEST_F(BadInput, TrafficElementAttributeMustBeOneOfTheClasses) {
  for (const int attribute : {13, -1}) {
    Json frame = valid_frame();
    frame["annotation"]["traffic_element"][1]["attribute"] = attribute;
    write_frame(frame);
    const std::string message = read_error();
    EXPECT_MESSAGE_HAS(message, frame_path().string());
    EXPECT_MESSAGE_HAS(message, "key `annotation.traffic_element[1].attribute`");
    EXPECT_MESSAGE_HAS(message, "expected an integer in [0, 13)");
  }
  Json frame = valid_frame();
  frame["annotation"]["traffic_element"][0]["attribute"] = 12;
  write_frame(frame);
  EXPECT_EQ(read().traffic_elements[0].attribute, 12);
}

TEST_F(BadInput, IdsAndLabelsMustBeIntegers) {
  Json frame = valid_frame();
  frame["annotation"]["lane_centerline"][2]["id"] = 1.5;
  write_frame(frame);
  EXPECT_MESSAGE_HAS(read_error(), "key `annotation.lane_centerline[2].id`: expected an integer");

  frame = valid_frame();
  frame["annotation"]["traffic_element"][0]["attribute"] = true;
  write_frame(frame);
  EXPECT_MESSAGE_HAS(read_error(),
                     "key `annotation.traffic_element[0].attribute`: expected an integer");
}

TEST_F(BadInput, EveryMatrixAndPointListHasItsShape) {
  Json frame = valid_frame();
  frame["sensor"]["ring_rear_left"]["intrinsic"]["K"] = {
      {100, 0, 16, 0}, {0, 100, 12, 0}, {0, 0, 1, 0}};
  write_frame(frame);
  EXPECT_MESSAGE_HAS(read_error(), "key `sensor.ring_rear_left.intrinsic.K`: expected a 3x3");

  frame = valid_frame();
  frame["sensor"]["ring_side_left"]["extrinsic"]["translation"] = {1.5, 0};
  write_frame(frame);
  EXPECT_MESSAGE_HAS(read_error(),
                     "key `sensor.ring_side_left.extrinsic.translation`: expected a list of 3");

  frame = valid_frame();
  frame["pose"]["rotation"] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  write_frame(frame);
  EXPECT_MESSAGE_HAS(read_error(), "key `pose.rotation`: expected a 3x3");

  frame = valid_frame();
  frame["annotation"]["lane_centerline"][1]["points"][3] = {2.0, 3.5};
  write_frame(frame);
  EXPECT_MESSAGE_HAS(read_error(),
                     "key `annotation.lane_centerline[1].points[3]`: expected a list of 3 numbers");

  frame = valid_frame();
  frame["annotation"]["lane_centerline"][0]["points"] = {{0.0, 0.0, 0.0}};
  write_frame(frame);
  EXPECT_MESSAGE_HAS(read_error(), "key `annotation.lane_centerline[0].points`: has 1 points");

  frame = valid_frame();
  frame["annotation"]["traffic_element"][0]["points"] = {{1.0, 2.0, 3.0, 6.0}};
  write_frame(frame);
  EXPECT_MESSAGE_HAS(read_error(), "key `annotation.traffic_element[0].points`: expected a 2x2");
}

TEST_F(BadInput, RotationsMustBeOrthonormal) {
  Json frame = valid_frame();
  frame["sensor"]["ring_front_right"]["extrinsic"]["rotation"] = {
      {0, 0, 2}, {-2, 0, 0}, {0, -2, 0}};
  write_frame(frame);
  EXPECT_MESSAGE_HAS(read_error(),
                     "key `sensor.ring_front_right.extrinsic.rotation`: not orthonormal");

  frame = valid_frame();
  frame["pose"]["rotation"] = {{1, 0.1, 0}, {0, 1, 0}, {0, 0, 1}};
  write_frame(frame);
  EXPECT_MESSAGE_HAS(read_error(), "key `pose.rotation`: not orthonormal");

  frame = valid_frame();  // a mirrored camera frame is orthonormal too
  frame["sensor"]["ring_front_right"]["extrinsic"]["rotation"] = {{0, 0, 1}, {1, 0, 0}, {0, -1, 0}};
  write_frame(frame);
  EXPECT_EQ(read().cameras[2].R[3], 1.0);
}

TEST_F(BadInput, IntrinsicsMustBePinholeMatrices) {
  Json frame = valid_frame();
  frame["sensor"]["ring_front_center"]["intrinsic"]["K"] = {{0, 0, 16}, {0, 100, 12}, {0, 0, 1}};
  write_frame(frame);
  EXPECT_MESSAGE_HAS(read_error(),
                     "key `sensor.ring_front_center.intrinsic.K`: not a pinhole matrix");

  frame = valid_frame();
  frame["sensor"]["ring_front_center"]["intrinsic"]["K"] = {{100, 0, 16}, {0, 100, 12}, {0, 0, 0}};
  write_frame(frame);
  EXPECT_MESSAGE_HAS(read_error(), "not a pinhole matrix");
}

TEST_F(BadInput, TopologyEntriesAreZeroOrOne) {
  Json frame = valid_frame();
  frame["annotation"]["topology_lclc"][0][1] = 2;
  write_frame(frame);
  EXPECT_MESSAGE_HAS(read_error(), "key `annotation.topology_lclc[0][1]`: expected 0 or 1, got 2");

  frame = valid_frame();
  frame["annotation"]["topology_lcte"][2][0] = 0.5;
  write_frame(frame);
  EXPECT_MESSAGE_HAS(read_error(), "key `annotation.topology_lcte[2][0]`: expected an integer");

  frame = valid_frame();
  frame["annotation"]["topology_lcte"][2][0] = true;  // numpy's int8 conversion takes booleans
  write_frame(frame);
  EXPECT_EQ(read().lcte(2, 0), 1);
}

TEST_F(BadInput, NumbersBeyondFloat32AreRejected) {
  Json frame = valid_frame();
  frame["annotation"]["lane_centerline"][0]["points"][4][0] = 1e39;
  write_frame(frame);
  const std::string message = read_error();
  EXPECT_MESSAGE_HAS(message, "key `annotation.lane_centerline[0].points[4][0]`");
  EXPECT_MESSAGE_HAS(message, "float32");
}

TEST_F(BadInput, NonFiniteNumbersAreRejected) {
  std::string text = valid_frame().dump();
  const std::string needle = "\"translation\":[10";
  text.replace(text.find(needle), needle.size(), "\"translation\":[NaN");
  write_text(frame_path(), text);
  const std::string message = read_error();
  EXPECT_MESSAGE_HAS(message, frame_path().string());
  EXPECT_MESSAGE_HAS(message, "non-finite");
}

TEST_F(BadInput, ImagePathsMustStayInsideDataRoot) {
  Json frame = valid_frame();
  frame["sensor"]["ring_front_left"]["image_path"] = "/etc/passwd";
  write_frame(frame);
  EXPECT_MESSAGE_HAS(read_error(), "absolute");

  frame["sensor"]["ring_front_left"]["image_path"] = "train/../../outside.jpg";
  write_frame(frame);
  const std::string message = read_error();
  EXPECT_MESSAGE_HAS(message, "escapes data_root");
  EXPECT_MESSAGE_HAS(message, frame_path().string());
}

TEST_F(BadInput, FramesWithoutLanesOrElementsAndWithUnknownKeysAreValid) {
  Json frame = valid_frame();
  frame["annotation"] = {{"lane_centerline", Json::array()},
                         {"traffic_element", Json::array()},
                         {"topology_lclc", Json::array()},
                         {"topology_lcte", Json::array()},
                         {"some_future_key", 3}};
  frame["extra"] = {{"anything", true}};
  write_frame(frame);
  const Frame parsed = read();
  EXPECT_TRUE(parsed.has_annotation);
  EXPECT_EQ(parsed.num_lanes(), 0u);
  EXPECT_EQ(parsed.num_traffic_elements(), 0u);
}

TEST_F(BadInput, MissingImageNamesTheImage) {
  fs::remove(image_path(1));
  const std::string message = load_error();
  EXPECT_MESSAGE_HAS(message, image_path(1).string());
}

TEST_F(BadInput, UnreadableImageNamesTheImage) {
  fs::remove(image_path(1));
  fs::create_directories(image_path(1));  // a directory where the file should be
  EXPECT_MESSAGE_HAS(load_error(), image_path(1).string());
}

TEST_F(BadInput, CorruptJpegNamesTheImage) {
  write_text(image_path(0), std::string("\xFF\xD8\xFF\xE0garbage-not-a-jpeg\xFF\xD9", 24));
  const std::string message = load_error();
  EXPECT_MESSAGE_HAS(message, image_path(0).string());
  EXPECT_MESSAGE_HAS(message, "decode");
}

TEST_F(BadInput, TruncatedJpegIsAnErrorEvenWhenItDecodes) {
  cv::Mat noise(192, 256, CV_8UC3);
  cv::randu(noise, cv::Scalar::all(0), cv::Scalar::all(255));
  ASSERT_TRUE(cv::imwrite(image_path(0).string(), noise));
  std::ifstream in(image_path(0), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  const std::string cut = bytes.substr(0, bytes.size() * 2 / 3);  // inside the scan data
  // OpenCV still returns an image for such a file; the reader must not accept it.
  std::vector<unsigned char> raw(cut.begin(), cut.end());
  EXPECT_FALSE(cv::imdecode(raw, cv::IMREAD_UNCHANGED).empty());
  EXPECT_FALSE(jpeg_is_complete(raw));
  write_text(image_path(0), cut);
  const std::string message = load_error();
  EXPECT_MESSAGE_HAS(message, image_path(0).string());
  EXPECT_MESSAGE_HAS(message, "truncated");
}

TEST_F(BadInput, CollectionListingAMissingFrameNamesBothFiles) {
  fs::remove(frame_path());
  const FrameIndex index(root_, root_ / "data_dict_tiny.json", kSplit);
  try {
    index.load(0);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_MESSAGE_HAS(std::string(e.what()), (root_ / "data_dict_tiny.json").string());
    EXPECT_MESSAGE_HAS(std::string(e.what()), frame_path().string());
  }
}

TEST_F(BadInput, MalformedCollectionAndMissingSplitAreNamed) {
  write_text(root_ / "broken.json", "[1, 2");
  EXPECT_THROW(FrameIndex(root_, root_ / "broken.json", kSplit), Error);
  try {
    FrameIndex(root_, root_ / "data_dict_tiny.json", "val");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_MESSAGE_HAS(std::string(e.what()), "data_dict_tiny.json");
    EXPECT_MESSAGE_HAS(std::string(e.what()), "`val`");
  }
}

TEST_F(BadInput, SkipBadFramesTurnsAnErrorIntoACountedSkip) {
  fs::remove(image_path(0));
  const Pipeline pipeline = build_pipeline(parse_yaml(
      "- {type: CustomLoadMultiViewImageFromFiles}\n- {type: CustomDefaultFormatBundle}\n"
      "- {type: Collect, keys: [img]}\n",
      "pipeline.yaml"));
  const FrameIndex index(root_, root_ / "data_dict_tiny.json", kSplit);
  const OpenLaneV2Dataset strict(index, pipeline, DatasetOptions{0, false});
  EXPECT_THROW(strict.try_get(0, 0), Error);
  const OpenLaneV2Dataset lenient(index, pipeline, DatasetOptions{0, true});
  EXPECT_FALSE(lenient.try_get(0, 0).has_value());
  EXPECT_EQ(lenient.skipped(), 1);
}

}  // namespace
}  // namespace olv2
