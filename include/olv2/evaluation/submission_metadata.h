#pragma once
#include <string>
#include <utility>
#include <vector>

namespace olv2 {

// Who made a results file: the metadata members the official devkit's `check_results` wants for
// a valid leaderboard submission (`method`, `authors`, `e-mail`, `institution / company`,
// `country / region`). Empty members are left out of the file.
struct SubmissionMetadata {
  std::string method;
  std::vector<std::string> authors;  // at most 10
  std::string e_mail;
  std::string institution;  // `institution / company`
  std::string country;      // `country / region`: an ISO 3166 country name or code
};

// Metadata naming only the method (what a results file written without a `submission` section
// carries).
inline SubmissionMetadata method_only(std::string method) {
  SubmissionMetadata metadata;
  metadata.method = std::move(method);
  return metadata;
}

}  // namespace olv2
