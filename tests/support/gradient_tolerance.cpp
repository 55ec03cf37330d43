#include "gradient_tolerance.h"

#include <gtest/gtest.h>

#include "olv2/models/gradient_record.h"
#include "olv2/util/pth/pth_file.h"

namespace olv2::test {

double gradient_parity_tolerance() {
  return std::string(OLV2_BUILT_LIBTORCH) == "debian" ? 5e-5 : 1e-5;
}

size_t expect_gradient_parity(const NamedTensors& ours, const std::filesystem::path& reference,
                              const std::set<std::string>& zero_in_reference, double tolerance) {
  const std::vector<GradientDifference> differences =
      compare_gradient_records(ours, tensors_of(read_pth(reference)));
  size_t compared = 0;
  std::set<std::string> zero;
  for (const GradientDifference& d : differences) {
    EXPECT_TRUE(within_tolerance(d, tolerance)) << d.name << "\n"
                                                << format_gradient_differences(differences);
    if (d.kind == GradientDifference::Kind::kZeroInReference) zero.insert(d.name);
    if (d.kind == GradientDifference::Kind::kCompared) ++compared;
  }
  EXPECT_EQ(zero, zero_in_reference);
  return compared;
}

}  // namespace olv2::test
