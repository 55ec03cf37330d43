#include "olv2/evaluation/submission_metadata.h"

#include "olv2/evaluation/iso3166.h"

namespace olv2 {

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
