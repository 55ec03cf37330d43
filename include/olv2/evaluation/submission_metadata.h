#pragma once
// Who made a results file: the metadata a valid OpenLane-V2 leaderboard submission needs, from the
// config's `submission` section.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"

namespace olv2 {

// The leaderboard takes at most this many `authors`.
inline constexpr std::size_t kMaxSubmissionAuthors = 10;

// Who made a results file: the metadata members the official devkit's `check_results` wants for
// a valid leaderboard submission (`method`, `authors`, `e-mail`, `institution / company`,
// `country / region`). Empty members are left out of the file.
struct SubmissionMetadata {
  std::string method;
  std::vector<std::string> authors;  // at most kMaxSubmissionAuthors
  std::string e_mail;
  std::string institution;  // `institution / company`
  std::string country;      // `country / region`: an ISO 3166 country name or code

  // The config's `submission` section: the results files' metadata.
  static Schema schema();
  // An absent section: the method `train_ds` only. More than kMaxSubmissionAuthors authors is
  // an input error naming the key.
  static SubmissionMetadata from_config(const ConfigNode* section);
};

// Metadata naming only the method (what a results file written without a `submission` section
// carries).
inline SubmissionMetadata method_only(std::string method) {
  SubmissionMetadata metadata;
  metadata.method = std::move(method);
  return metadata;
}

// What keeps `metadata` from making a valid leaderboard submission, one line per member under
// its official key: a missing member (the devkit only prints "Missing key"), more than
// kMaxSubmissionAuthors authors, or a country that ISO 3166 does not know (the devkit raises).
// Empty when the metadata is complete.
std::vector<std::string> submission_metadata_problems(const SubmissionMetadata& metadata);

}  // namespace olv2
