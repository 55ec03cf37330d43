#include "olv2/config/schema.h"

#include <gtest/gtest.h>

#include "olv2/config/config_loader.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

Schema optimizer_like() {
  return Schema::map()
      .required("type", Schema::string().choices({"AdamW"}))
      .required("lr", Schema::number())
      .optional("betas", Schema::sequence(Schema::number()))
      .optional("grad_clip", Schema::map().required("max_norm", Schema::number()).nullable());
}

std::string all_problems(const std::string& yaml, const Schema& schema) {
  std::string joined;
  for (const std::string& problem : schema.problems(parse_yaml(yaml, "c.yaml")))
    joined += problem + "\n";
  return joined;
}

TEST(Schema, AcceptsAValidTree) {
  EXPECT_EQ(
      all_problems("type: AdamW\nlr: 1\nbetas: [0.9, 0.999]\ngrad_clip: null\n", optimizer_like()),
      "");
}

TEST(Schema, UnknownKeyNamesLocationPathAndClosestKey) {
  const Schema root = Schema::map().optional("optimizer", optimizer_like());
  const std::string problems =
      all_problems("optimizer:\n  type: AdamW\n  lr: 1\n  betass: [1]\n", root);
  EXPECT_NE(problems.find("c.yaml:4:3: unknown key `optimizer.betass`"), std::string::npos)
      << problems;
  EXPECT_NE(problems.find("did you mean `optimizer.betas`"), std::string::npos) << problems;
}

// Unknown keys are told apart from the other problems by the schema itself, each kind in order.
TEST(Schema, SortsUnknownKeysFromOtherProblems) {
  const Schema::ProblemsByKind problems = optimizer_like().problems_by_kind(
      parse_yaml("type: AdamW\nlr: fast\nbetass: [1]\nzz: 1\n", "c.yaml"));
  ASSERT_EQ(problems.unknown_keys.size(), 2u);
  EXPECT_NE(problems.unknown_keys[0].find("unknown key `betass`"), std::string::npos);
  EXPECT_NE(problems.unknown_keys[1].find("unknown key `zz`"), std::string::npos);
  ASSERT_EQ(problems.others.size(), 1u);
  EXPECT_NE(problems.others[0].find("key `lr`: expected a number"), std::string::npos);
}

TEST(Schema, NoSuggestionWhenNothingIsClose) {
  const std::string problems = all_problems("type: AdamW\nlr: 1\nzzzzzzzz: 1\n", optimizer_like());
  EXPECT_NE(problems.find("unknown key `zzzzzzzz`"), std::string::npos);
  EXPECT_EQ(problems.find("did you mean"), std::string::npos) << problems;
}

TEST(Schema, WrongTypeNamesWhatWasExpected) {
  const std::string problems = all_problems("type: AdamW\nlr: fast\nbetas: 3\n", optimizer_like());
  EXPECT_NE(problems.find("c.yaml:2:5: key `lr`: expected a number, got `fast`"), std::string::npos)
      << problems;
  EXPECT_NE(problems.find("key `betas`: expected a list"), std::string::npos) << problems;
}

TEST(Schema, MissingRequiredKeyAndBadChoice) {
  const std::string problems = all_problems("type: Adam\n", optimizer_like());
  EXPECT_NE(problems.find("missing required key `lr`"), std::string::npos) << problems;
  EXPECT_NE(problems.find("`Adam` is not one of: AdamW"), std::string::npos) << problems;
}

TEST(Schema, TaggedMapsSelectTheirVariant) {
  const Schema transform =
      Schema::tagged("type", {{"Pad", Schema::map()
                                          .required("type", Schema::string())
                                          .optional("size_divisor", Schema::integer())},
                              {"Load", Schema::map().required("type", Schema::string())}});
  const Schema pipeline = Schema::sequence(transform);
  EXPECT_EQ(all_problems("- {type: Load}\n- {type: Pad, size_divisor: 32}\n", pipeline), "");
  const std::string problems = all_problems("- {type: Lod}\n- {type: Pad, size: 3}\n", pipeline);
  EXPECT_NE(problems.find("unknown type `Lod` (did you mean `Load`?)"), std::string::npos)
      << problems;
  EXPECT_NE(problems.find("unknown key `[1].size`"), std::string::npos) << problems;
}

TEST(Schema, EitherAcceptsBothShapes) {
  const Schema ds = Schema::either(Schema::string(), Schema::open_map());
  EXPECT_EQ(all_problems("file.json\n", ds), "");
  EXPECT_EQ(all_problems("{fp16: {enabled: true}}\n", ds), "");
  EXPECT_NE(all_problems("[1, 2]\n", ds), "");
}

TEST(Schema, RangesAreChecked) {
  const Schema schema = Schema::map().optional("p", Schema::number().range(0.0, 1.0));
  EXPECT_EQ(all_problems("p: 0.5\n", schema), "");
  EXPECT_NE(all_problems("p: 1.5\n", schema).find("outside [0, 1]"), std::string::npos);
}

TEST(ValidateConfig, ThrowsAnInputErrorListingEveryProblem) {
  try {
    validate_config(parse_yaml("type: SGD\nlrr: 1\n", "c.yaml"), optimizer_like());
    FAIL();
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    EXPECT_NE(message.find("3 problems"), std::string::npos) << message;
  }
}

TEST(ClosestMatch, PicksTheNearestCandidate) {
  EXPECT_EQ(closest_match("lr_confg", {"lr_config", "log_config", "optimizer"}), "lr_config");
  EXPECT_EQ(closest_match("xyz", {"lr_config"}), "");
}

}  // namespace
}  // namespace olv2
