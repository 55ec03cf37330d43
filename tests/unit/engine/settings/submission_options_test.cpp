// The `submission` section: read into the validation's results-file metadata, checked by the
// config schema (unknown keys, types) and by the leaderboard's limit of 10 authors.
#include <gtest/gtest.h>

#include "olv2/config/config_loader.h"
#include "olv2/config/schema.h"
#include "olv2/engine/settings/engine_options.h"
#include "olv2/engine/settings/train_config.h"
#include "olv2/util/error.h"
#include "support/input_error.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

ConfigNode baseline_with(const std::vector<std::string>& overrides) {
  ConfigNode root = load_config_file(test::source_dir() / "configs" / "baseline.yaml");
  apply_config_overrides(root, overrides);
  return root;
}

using test::input_error_of;

TEST(SubmissionOptions, TheSectionBecomesTheResultsMetadata) {
  const ConfigNode root =
      baseline_with({"submission.method=my method", "submission.authors=[A. Author, B. Author]",
                     "submission.e-mail=me@example.org", "submission.institution / company=Lab",
                     "submission.country / region=Germany", "evaluation.visualize=3"});
  validate_config(root, train_config_schema());
  const EngineOptions options = engine_options_from_config(root);
  const SubmissionMetadata& metadata = options.evaluation.submission;
  EXPECT_EQ(metadata.method, "my method");
  EXPECT_EQ(metadata.authors, (std::vector<std::string>{"A. Author", "B. Author"}));
  EXPECT_EQ(metadata.e_mail, "me@example.org");
  EXPECT_EQ(metadata.institution, "Lab");
  EXPECT_EQ(metadata.country, "Germany");
  EXPECT_EQ(options.evaluation.visualize, 3);
}

TEST(SubmissionOptions, WithoutTheSectionOnlyTheMethodIsNamed) {
  const EngineOptions options = engine_options_from_config(baseline_with({}));
  EXPECT_EQ(options.evaluation.submission.method, "train_ds");
  EXPECT_TRUE(options.evaluation.submission.authors.empty());
  EXPECT_TRUE(options.evaluation.submission.country.empty());
  EXPECT_EQ(options.evaluation.visualize, 0);
}

TEST(SubmissionOptions, AnUnknownKeyOrAWrongTypeIsAConfigError) {
  const std::string unknown = input_error_of(
      [] { validate_config(baseline_with({"submission.email=x"}), train_config_schema()); });
  EXPECT_NE(unknown.find("submission.email"), std::string::npos) << unknown;
  const std::string type = input_error_of(
      [] { validate_config(baseline_with({"submission.authors=A"}), train_config_schema()); });
  EXPECT_NE(type.find("submission.authors"), std::string::npos) << type;
}

TEST(SubmissionOptions, MoreThanTenAuthorsIsAnErrorNamingTheKey) {
  const std::string message = input_error_of([] {
    engine_options_from_config(baseline_with({"submission.authors=[a,b,c,d,e,f,g,h,i,j,k]"}));
  });
  EXPECT_NE(message.find("submission.authors"), std::string::npos) << message;
  EXPECT_NE(message.find("11 authors"), std::string::npos) << message;
}

}  // namespace
}  // namespace olv2
