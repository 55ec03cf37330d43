#include "olv2/data/dataset_location.h"

#include <gtest/gtest.h>

#include "olv2/config/config_loader.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

TEST(DatasetLocation, TopLevelRootsAreEverySplitsDefaults) {
  const ConfigNode root = parse_yaml(
      "data_root: /d\nmeta_root: /m\ndata:\n  train: {collection: data_dict_subset_A_train}\n"
      "  val: {collection: data_dict_subset_A_val, data_root: /v}\n",
      "c.yaml");
  const DatasetLocation train = resolve_dataset_location(root, "train");
  EXPECT_EQ(train.data_root, "/d");
  EXPECT_EQ(train.collection_file, "/m/data_dict_subset_A.json");
  EXPECT_EQ(train.split, "train");
  const DatasetLocation val = resolve_dataset_location(root, "val");
  EXPECT_EQ(val.data_root, "/v");
  EXPECT_EQ(val.split, "val");
}

TEST(DatasetLocation, SyntheticCollectionNaming) {
  const DatasetLocation location =
      dataset_location_from_collection("data/s", "data/s", "data_dict_synthetic_val");
  EXPECT_EQ(location.collection_file, "data/s/data_dict_synthetic.json");
  EXPECT_EQ(location.split, "val");
}

TEST(DatasetLocation, MissingRootOrMalformedCollectionIsAnError) {
  const ConfigNode no_root = parse_yaml("data:\n  train: {collection: a_train}\n", "c.yaml");
  try {
    resolve_dataset_location(no_root, "train");
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("data.train.data_root"), std::string::npos)
        << error.what();
  }
  const ConfigNode bad =
      parse_yaml("data_root: d\nmeta_root: m\ndata:\n  train: {collection: train}\n", "c.yaml");
  EXPECT_THROW(resolve_dataset_location(bad, "train"), Error);
}

}  // namespace
}  // namespace olv2

namespace olv2 {
namespace {

// TopoNet's configs name the devkit's pickle; the collection JSON it was made from is read.
TEST(DatasetLocation, TopoNetsAnnFileNamesTheCollectionBesideIt) {
  const ConfigNode root = parse_yaml(
      "data:\n  train: {data_root: data/OpenLane-V2/, split: train,\n"
      "          ann_file: data/OpenLane-V2/data_dict_subset_A_train.pkl}\n"
      "  val: {data_root: d, split: train, ann_file: d/data_dict_subset_A_val.pkl}\n",
      "c.yaml");
  const DatasetLocation train = resolve_dataset_location(root, "train");
  EXPECT_EQ(train.data_root, "data/OpenLane-V2/");
  EXPECT_EQ(train.collection_file, "data/OpenLane-V2/data_dict_subset_A.json");
  EXPECT_EQ(train.split, "train");
  try {
    resolve_dataset_location(root, "val");
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("data.val.split"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("`val` of ann_file"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace olv2

namespace olv2 {
namespace {

// The suffix of a collection's or pickle's name says which frames it holds and how its
// preprocessing resampled them; the collection JSON is the same.
TEST(DatasetLocation, LaneSegmentCollectionsAreToldByTheirSuffix) {
  const ConfigNode root = parse_yaml(
      "data_root: d\nmeta_root: m\ndata:\n"
      "  train: {ann_file: d/data_dict_subset_A_train_lanesegnet.pkl}\n"
      "  val: {ann_file: d/data_dict_subset_A_val_ls.pkl}\n"
      "  test: {collection: data_dict_subset_A_test_ls}\n",
      "c.yaml");
  const DatasetLocation train = resolve_dataset_location(root, "train");
  EXPECT_EQ(train.collection_file, "d/data_dict_subset_A.json");
  EXPECT_EQ(train.split, "train");
  EXPECT_EQ(train.kind, CollectionKind::kLaneSegNet);
  const DatasetLocation val = resolve_dataset_location(root, "val");
  EXPECT_EQ(val.split, "val");
  EXPECT_EQ(val.kind, CollectionKind::kLaneSegment);
  const DatasetLocation test = resolve_dataset_location(root, "test");
  EXPECT_EQ(test.collection_file, "m/data_dict_subset_A.json");
  EXPECT_EQ(test.split, "test");
  EXPECT_EQ(test.kind, CollectionKind::kLaneSegment);
  EXPECT_EQ(dataset_location_from_collection("d", "m", "data_dict_subset_A_val").kind,
            CollectionKind::kCenterline);
  EXPECT_EQ(frame_info_path("d", {"val", "00001", "315"}, CollectionKind::kLaneSegNet),
            "d/val/00001/info/315-ls.json");
  EXPECT_EQ(frame_info_path("d", {"val", "00001", "315"}), "d/val/00001/info/315.json");

  const ConfigNode bad =
      parse_yaml("data:\n  train: {data_root: d, ann_file: d/train_ls.pkl}\n", "c.yaml");
  try {
    resolve_dataset_location(bad, "train");
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("data_dict_subset_A_train_ls.pkl"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace olv2
