#include "support/baseline_gradient_records.h"

#include <sstream>

#include "support/gradient_tolerance.h"
#include "support/test_paths.h"

namespace olv2::test {

std::string BaselineGradientRecords::tolerance_text() const {
  std::ostringstream text;
  text << tolerance;
  return text.str();
}

BaselineGradientRecords baseline_gradient_records() {
  const std::filesystem::path records = source_dir() / "tests/data/gradients";
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f");
#else
  const bool avx512 = true;
#endif
  if (avx512) return {records, gradient_parity_tolerance()};
  return {records / "avx2", 1.5e-4};
}

}  // namespace olv2::test
