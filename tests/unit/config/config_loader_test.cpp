#include "olv2/config/config_loader.h"

#include <gtest/gtest.h>

#include "olv2/util/error.h"
#include "support/temp_files.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

using test::scratch_dir;
using test::write_text;

TEST(ConfigNode, RemembersFileLineColumnAndKeyPath) {
  const ConfigNode root = parse_yaml("a:\n  b:\n    - 1\n    - {c: x}\n", "f.yaml");
  const ConfigNode& c = root.at("a").at("b")[1].at("c");
  EXPECT_EQ(c.location().to_string(), "f.yaml:4:11");
  EXPECT_EQ(c.path(), "a.b[1].c");
  EXPECT_EQ(root.at("a").key_location().to_string(), "f.yaml:1:1");
}

TEST(ConfigNode, KeepsKeyOrderAsWritten) {
  const ConfigNode root = parse_yaml("z: 1\na: 2\nm: 3\n", "f.yaml");
  ASSERT_EQ(root.entries().size(), 3u);
  EXPECT_EQ(root.entries()[0].first, "z");
  EXPECT_EQ(root.entries()[2].first, "m");
}

TEST(ConfigNode, ConvertsScalarsAndRejectsWrongTypesWithLocation) {
  const ConfigNode root = parse_yaml("lr: 1e-4\nn: 7\nflag: true\nname: '12'\n", "f.yaml");
  EXPECT_DOUBLE_EQ(root.at("lr").as_double(), 1e-4);
  EXPECT_EQ(root.at("n").as_int(), 7);
  EXPECT_DOUBLE_EQ(root.at("n").as_double(), 7.0);
  EXPECT_TRUE(root.at("flag").as_bool());
  EXPECT_EQ(root.at("name").as_string(), "12");
  try {
    root.at("name").as_int();
    FAIL() << "a quoted string converted to an integer";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    EXPECT_NE(std::string(error.what()).find("f.yaml:4:7"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("`name`"), std::string::npos) << error.what();
  }
}

TEST(ConfigNode, GetFallsBackOnMissingOrNull) {
  const ConfigNode root = parse_yaml("a: null\nb: 3\n", "f.yaml");
  EXPECT_EQ(root.get<int64_t>("a", 5), 5);
  EXPECT_EQ(root.get<int64_t>("missing", 6), 6);
  EXPECT_EQ(root.get<int64_t>("b", 0), 3);
}

TEST(ConfigNode, MissingKeyNamesTheFullPath) {
  const ConfigNode root = parse_yaml("data:\n  train: {}\n", "f.yaml");
  try {
    root.at("data").at("train").at("collection");
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("data.train.collection"), std::string::npos);
  }
}

TEST(ParseYaml, MalformedYamlNamesFileAndLine) {
  try {
    parse_yaml("a: [1, 2\nb: 3\n", "broken.yaml");
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    EXPECT_NE(std::string(error.what()).find("broken.yaml:"), std::string::npos) << error.what();
  }
}

TEST(ParseYaml, DuplicateKeyIsAnError) {
  EXPECT_THROW(parse_yaml("a: 1\na: 2\n", "dup.yaml"), Error);
}

TEST(LoadConfigFile, BaseRelativeToIncludingFileOverridesRecursively) {
  const auto dir = scratch_dir("base");
  write_text(dir, "common/base.yaml",
             "optimizer:\n  lr: 0.1\n  weight_decay: 0.01\nlist: [1, 2]\nkeep: yes\n");
  const auto child =
      write_text(dir, "child.yaml", "_base_: common/base.yaml\noptimizer:\n  lr: 0.2\nlist: [3]\n");
  const ConfigNode root = load_config_file(child);
  EXPECT_FALSE(root.has("_base_"));
  EXPECT_DOUBLE_EQ(root.at("optimizer").at("lr").as_double(), 0.2);
  EXPECT_DOUBLE_EQ(root.at("optimizer").at("weight_decay").as_double(), 0.01);
  ASSERT_EQ(root.at("list").size(), 1u);
  EXPECT_EQ(root.at("list")[0].as_int(), 3);
  EXPECT_EQ(root.at("optimizer").at("weight_decay").location().file,
            (dir / "common/base.yaml").string());
  EXPECT_EQ(root.at("optimizer").at("lr").path(), "optimizer.lr");
}

TEST(LoadConfigFile, AbsoluteBaseAndBaseLists) {
  const auto dir = scratch_dir("lists");
  const auto a = write_text(dir, "a.yaml", "x: 1\ny: 1\n");
  write_text(dir, "b.yaml", "y: 2\nz: 2\n");
  const auto child = write_text(dir, "c.yaml", "_base_: [" + a.string() + ", b.yaml]\nz: 3\n");
  const ConfigNode root = load_config_file(child);
  EXPECT_EQ(root.at("x").as_int(), 1);
  EXPECT_EQ(root.at("y").as_int(), 2);
  EXPECT_EQ(root.at("z").as_int(), 3);
}

TEST(LoadConfigFile, MissingBaseAndCyclesAreErrors) {
  const auto dir = scratch_dir("cycle");
  const auto missing = write_text(dir, "m.yaml", "_base_: nowhere.yaml\n");
  EXPECT_THROW(load_config_file(missing), Error);
  write_text(dir, "p.yaml", "_base_: q.yaml\n");
  const auto q = write_text(dir, "q.yaml", "_base_: p.yaml\n");
  EXPECT_THROW(load_config_file(q), Error);
  EXPECT_THROW(load_config_file(dir / "absent.yaml"), Error);
}

TEST(ConfigOverrides, ValuesAreParsedAsYaml) {
  ConfigNode root =
      parse_yaml("optimizer:\n  lr: 0.1\ndata:\n  pipeline: [{type: A}, {type: B}]\n", "f.yaml");
  apply_config_overrides(root, {"optimizer.lr=0.0002", "optimizer.betas=[0.9, 0.95]",
                                "data.pipeline.1.type=C", "new.key=text"});
  EXPECT_DOUBLE_EQ(root.at("optimizer").at("lr").as_double(), 0.0002);
  EXPECT_EQ(root.at("optimizer").at("betas").as_vector<double>(), (std::vector<double>{0.9, 0.95}));
  EXPECT_EQ(root.at("data").at("pipeline")[1].at("type").as_string(), "C");
  EXPECT_EQ(root.at("new").at("key").as_string(), "text");
  EXPECT_EQ(root.at("new").at("key").path(), "new.key");
  EXPECT_EQ(root.at("optimizer").at("lr").location().file, "--cfg-options optimizer.lr=0.0002");
}

TEST(ConfigOverrides, NullReplacesAMapping) {
  ConfigNode root = parse_yaml("model:\n  init_cfg:\n    type: Pretrained\n", "f.yaml");
  apply_config_overrides(root, {"model.init_cfg=null"});
  EXPECT_TRUE(root.at("model").at("init_cfg").is_null());
}

TEST(ConfigOverrides, MalformedOptionsAreErrors) {
  ConfigNode root = parse_yaml("a: [1]\n", "f.yaml");
  EXPECT_THROW(apply_config_overrides(root, {"no_equals"}), Error);
  EXPECT_THROW(apply_config_overrides(root, {"a.5=1"}), Error);
  EXPECT_THROW(apply_config_overrides(root, {"a..b=1"}), Error);
}

TEST(ToYaml, RoundTripsAndPrintsShortestNumbers) {
  const ConfigNode root = parse_yaml(
      "a: 0.3333333333333333\nb: 1e-4\nc: [1, 2.50]\nd: {e: 'true', f: null}\ng:\n  - {type: X, k: "
      "1}\n",
      "f.yaml");
  const std::string text = to_yaml(root);
  EXPECT_NE(text.find("a: 0.3333333333333333\n"), std::string::npos) << text;
  EXPECT_NE(text.find("b: 0.0001\n"), std::string::npos) << text;
  EXPECT_NE(text.find("c: [1, 2.5]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("e: \"true\"\n"), std::string::npos) << text;
  const ConfigNode again = parse_yaml(text, "again.yaml");
  EXPECT_EQ(to_yaml(again), text);
  EXPECT_EQ(again.at("d").at("e").as_string(), "true");
  EXPECT_EQ(again.at("g")[0].at("type").as_string(), "X");
}

}  // namespace
}  // namespace olv2
