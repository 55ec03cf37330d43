#pragma once
// Where a launcher's variables are read from: this process's environment or, in tests, a table.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace olv2 {

// The value of one launcher variable (RANK, SLURM_PROCID, ...), or nothing when it is unset or
// empty: an empty value counts as unset, as in torchrun.
using LaunchVariables = std::function<std::optional<std::string>(const std::string& name)>;

// This process's environment.
LaunchVariables process_launch_variables();

// The variable `name` as an integer in [min, max], `fallback` when it is unset; any other value
// is an input error naming the variable, its value and the range.
int64_t integer_variable(const LaunchVariables& variables, const std::string& name,
                         int64_t fallback, int64_t min, int64_t max);

}  // namespace olv2
