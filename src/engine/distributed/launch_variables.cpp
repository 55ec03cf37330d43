#include "olv2/engine/distributed/launch_variables.h"

#include <cstdlib>

#include "olv2/util/error.h"
#include "olv2/util/platform.h"

namespace olv2 {

LaunchVariables process_launch_variables() {
  return [](const std::string& name) -> std::optional<std::string> {
    std::optional<std::string> value = platform::environment_variable(name);
    if (value && value->empty()) return std::nullopt;
    return value;
  };
}

int64_t integer_variable(const LaunchVariables& variables, const std::string& name,
                         int64_t fallback, int64_t min, int64_t max) {
  const std::optional<std::string> text = variables(name);
  if (!text) return fallback;
  char* end = nullptr;
  const long long value = std::strtoll(text->c_str(), &end, 10);
  if (end == text->c_str() || *end != '\0' || value < min || value > max) {
    throw input_error("environment variable " + name + "=" + *text + ": expected an integer in [" +
                      std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return value;
}

}  // namespace olv2
