#pragma once
// The ISO 3166 country check the devkit applies to a leaderboard submission's `country / region`.
#include <string>

namespace olv2 {

// Whether the leaderboard takes `name_or_code` as `country / region`: an ISO 3166-1 country
// name, alpha-2, alpha-3 or numeric code, in any case, matched as the devkit's `check_results`
// matches it (Python's `iso3166.countries.get`).
bool is_iso3166_country(const std::string& name_or_code);

}  // namespace olv2
