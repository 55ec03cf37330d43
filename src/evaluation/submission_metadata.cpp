#include "olv2/evaluation/submission_metadata.h"

#include "olv2/evaluation/iso3166.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema SubmissionMetadata::schema() {
  return Schema::map()
      .optional("method", Schema::string())
      .optional("authors", Schema::sequence(Schema::string()))
      .optional("e-mail", Schema::string())
      .optional("institution / company", Schema::string())
      .optional("country / region", Schema::string());
}

SubmissionMetadata SubmissionMetadata::from_config(const ConfigNode* section) {
  if (section == nullptr) return method_only("train_ds");
  SubmissionMetadata metadata;
  metadata.method = section->get<std::string>("method", "train_ds");
  if (const ConfigNode* authors = section->find("authors")) {
    for (const ConfigNode& author : authors->elements())
      metadata.authors.push_back(author.as_string());
    if (metadata.authors.size() > kMaxSubmissionAuthors) {
      throw input_error(authors->where() + ": " + std::to_string(metadata.authors.size()) +
                        " authors, the leaderboard takes at most " +
                        std::to_string(kMaxSubmissionAuthors));
    }
  }
  metadata.e_mail = section->get<std::string>("e-mail", "");
  metadata.institution = section->get<std::string>("institution / company", "");
  metadata.country = section->get<std::string>("country / region", "");
  return metadata;
}

std::vector<std::string> submission_metadata_problems(const SubmissionMetadata& metadata) {
  std::vector<std::string> problems;
  const auto require = [&](const std::string& value, const char* key) {
    if (value.empty()) problems.push_back(std::string("`") + key + "`: missing");
  };
  require(metadata.method, "method");
  if (metadata.authors.empty()) {
    problems.emplace_back("`authors`: missing");
  } else if (metadata.authors.size() > kMaxSubmissionAuthors) {
    problems.push_back("`authors`: " + std::to_string(metadata.authors.size()) +
                       " names, the leaderboard takes at most " +
                       std::to_string(kMaxSubmissionAuthors));
  }
  require(metadata.e_mail, "e-mail");
  require(metadata.institution, "institution / company");
  if (metadata.country.empty()) {
    problems.emplace_back("`country / region`: missing");
  } else if (!is_iso3166_country(metadata.country)) {
    problems.push_back("`country / region`: '" + metadata.country +
                       "' is not an ISO 3166 country name or code");
  }
  return problems;
}

}  // namespace olv2
