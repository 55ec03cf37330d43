// Configs written to hurt: aliases that expand without end, nesting without end, `_base_`
// files that include each other many times over, integers and numbers past what their keys
// hold. Each is refused with an input error naming the file (and the key) before it costs the
// machine anything.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>

#include "olv2/config/config_loader.h"
#include "olv2/config/schema.h"
#include "olv2/util/error.h"
#include "support/input_error.h"
#include "support/temp_files.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

using test::input_error_of;

// Ten anchors, each a list of ten aliases of the one before: 10^10 scalars once expanded.
std::string alias_bomb() {
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level < 10; ++level) {
    const std::string previous = "*a" + std::to_string(level - 1);
    text += "a" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) text += (i == 0 ? "" : ", ") + previous;
    text += "]\n";
  }
  return text;
}

TEST(HostileConfig, AliasesThatExpandWithoutEndAreRefusedAtOnce) {
  const auto started = std::chrono::steady_clock::now();
  const std::string message = input_error_of([] { parse_yaml(alias_bomb(), "bomb.yaml"); });
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
  EXPECT_NE(message.find("bomb.yaml"), std::string::npos) << message;
  EXPECT_NE(message.find("alias"), std::string::npos) << message;
  // Refused after the limit's worth of nodes, not after expanding them all.
  EXPECT_LT(took.count(), 10.0);
}

TEST(HostileConfig, AliasesWithinTheLimitStillExpand) {
  const ConfigNode root =
      parse_yaml("base: &base {lr: 0.1, steps: [1, 2]}\ncopy: *base\n", "fine.yaml");
  EXPECT_DOUBLE_EQ(root.at("copy").at("lr").as_double(), 0.1);
  EXPECT_EQ(root.at("copy").at("steps").as_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
}

TEST(HostileConfig, NestingPastTheDepthLimitNamesTheFileAndLine) {
  std::string text = "a:\n";
  for (int level = 1; level < 100; ++level) text += std::string(level * 2, ' ') + "a:\n";
  const std::string message = input_error_of([&] { parse_yaml(text, "deep.yaml"); });
  EXPECT_NE(message.find("deep.yaml:"), std::string::npos) << message;
  EXPECT_NE(message.find("nested"), std::string::npos) << message;
  const std::string flow = std::string(5000, '[') + std::string(5000, ']');
  const std::string flow_message = input_error_of([&] { parse_yaml(flow, "flow.yaml"); });
  EXPECT_NE(flow_message.find("flow.yaml:"), std::string::npos) << flow_message;
}

TEST(HostileConfig, BaseFilesIncludedManyTimesOverAreRefused) {
  // Each level names the next twice: 2^30 loads without a bound.
  const auto dir = test::scratch_dir("base_bomb");
  for (int level = 0; level < 30; ++level) {
    const std::string next = "level" + std::to_string(level + 1) + ".yaml";
    test::write_text(dir, "level" + std::to_string(level) + ".yaml",
                     "_base_: [" + next + ", " + next + "]\nk" + std::to_string(level) + ": 1\n");
  }
  test::write_text(dir, "level30.yaml", "end: 1\n");
  const std::string message = input_error_of([&] { load_config_file(dir / "level0.yaml"); });
  EXPECT_NE(message.find("_base_"), std::string::npos) << message;
  EXPECT_NE(message.find("level"), std::string::npos) << message;
}

TEST(HostileConfig, IntegersPastTheirTypesRangeNameTheKey) {
  const ConfigNode root = parse_yaml(
      "huge: 99999999999999999999999\nwide: 4294967297\nfits: 2147483647\n", "ints.yaml");
  const std::string huge = input_error_of([&] { root.at("huge").as_int(); });
  EXPECT_NE(huge.find("`huge`"), std::string::npos) << huge;
  EXPECT_NE(huge.find("out of range"), std::string::npos) << huge;
  const std::string wide = input_error_of([&] { root.at("wide").as<int>(); });
  EXPECT_NE(wide.find("`wide`"), std::string::npos) << wide;
  EXPECT_NE(wide.find("2147483647"), std::string::npos) << wide;
  EXPECT_EQ(root.at("wide").as<int64_t>(), 4294967297);
  EXPECT_EQ(root.at("fits").as<int>(), 2147483647);

  const Schema schema = Schema::map().optional("huge", Schema::integer());
  const std::string problems = input_error_of([&] {
    validate_config(parse_yaml("huge: 99999999999999999999999\n", "schema.yaml"), schema);
  });
  EXPECT_NE(problems.find("`huge`"), std::string::npos) << problems;
  EXPECT_NE(problems.find("out of range"), std::string::npos) << problems;
}

TEST(HostileConfig, NumbersPastAFloatsRangeNameTheKey) {
  const ConfigNode root = parse_yaml("big: 1e39\nsmall: 1e38\n", "floats.yaml");
  const std::string message = input_error_of([&] { root.at("big").as<float>(); });
  EXPECT_NE(message.find("`big`"), std::string::npos) << message;
  EXPECT_DOUBLE_EQ(root.at("big").as<double>(), 1e39);
  EXPECT_FLOAT_EQ(root.at("small").as<float>(), 1e38f);
}

TEST(HostileConfig, NanAndInfinitiesAreRefusedWhereANumberMustBeFinite) {
  const Schema schema = Schema::map()
                            .optional("lr", Schema::number())
                            .optional("norm_type", Schema::number().allow_infinity());
  for (const std::string value : {".nan", ".inf", "-.inf"}) {
    SCOPED_TRACE(value);
    const std::string message = input_error_of(
        [&] { validate_config(parse_yaml("lr: " + value + "\n", "nan.yaml"), schema); });
    EXPECT_NE(message.find("nan.yaml:1:5"), std::string::npos) << message;
    EXPECT_NE(message.find("`lr`"), std::string::npos) << message;
    EXPECT_NE(message.find("finite"), std::string::npos) << message;
  }
  EXPECT_NO_THROW(validate_config(parse_yaml("norm_type: .inf\n", "inf.yaml"), schema));
  const std::string nan_norm =
      input_error_of([&] { validate_config(parse_yaml("norm_type: .nan\n", "inf.yaml"), schema); });
  EXPECT_NE(nan_norm.find("`norm_type`"), std::string::npos) << nan_norm;
  // Read without a schema, NaN is refused too.
  const std::string read =
      input_error_of([] { parse_yaml("x: .nan\n", "r.yaml").at("x").as_double(); });
  EXPECT_NE(read.find("`x`"), std::string::npos) << read;
}

}  // namespace
}  // namespace olv2
