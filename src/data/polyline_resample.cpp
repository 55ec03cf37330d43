#include "olv2/data/polyline_resample.h"

#include <algorithm>
#include <cmath>

namespace olv2 {

std::vector<std::array<double, 3>> resample_by_length(
    const std::vector<std::array<double, 3>>& points, int64_t count) {
  std::vector<std::array<double, 3>> out;
  if (points.empty()) return out;
  std::vector<double> cumulative{0.0};
  for (size_t i = 1; i < points.size(); ++i) {
    cumulative.push_back(cumulative.back() + std::hypot(points[i][0] - points[i - 1][0],
                                                        points[i][1] - points[i - 1][1]));
  }
  const double length = cumulative.back();
  // numpy.linspace's steps: k * (length / (count - 1)), the last one exactly the length.
  const double step = count > 1 ? length / static_cast<double>(count - 1) : 0.0;
  size_t segment = 0;
  for (int64_t k = 0; k < count; ++k) {
    const double at = k + 1 == count ? length : static_cast<double>(k) * step;
    while (segment + 2 < points.size() && cumulative[segment + 1] < at) ++segment;
    std::array<double, 3> p = points[segment];
    if (points.size() > 1) {
      const double span = cumulative[segment + 1] - cumulative[segment];
      const double t = span > 0 ? std::clamp((at - cumulative[segment]) / span, 0.0, 1.0) : 0.0;
      for (size_t d = 0; d < 3; ++d) p[d] += t * (points[segment + 1][d] - points[segment][d]);
    }
    out.push_back(p);
  }
  return out;
}

}  // namespace olv2
