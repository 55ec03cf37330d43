#include "olv2/evaluation/chamfer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "olv2/evaluation/numpy_mean.h"

namespace olv2 {

double chamfer_distance(const Polyline& ground_truth, const Polyline& prediction) {
  std::size_t num_gt = ground_truth.size();
  if (num_gt > 1 && ground_truth.front() == ground_truth.back()) --num_gt;
  std::vector<double> nearest_gt(prediction.size(), std::numeric_limits<double>::infinity());
  std::vector<double> nearest_prediction(num_gt, std::numeric_limits<double>::infinity());
  for (std::size_t p = 0; p < prediction.size(); ++p) {
    for (std::size_t g = 0; g < num_gt; ++g) {
      const double dx = static_cast<double>(prediction[p][0]) - ground_truth[g][0];
      const double dy = static_cast<double>(prediction[p][1]) - ground_truth[g][1];
      const double dz = static_cast<double>(prediction[p][2]) - ground_truth[g][2];
      const double distance = std::sqrt(dx * dx + dy * dy + dz * dz);
      nearest_gt[p] = std::min(nearest_gt[p], distance);
      nearest_prediction[g] = std::min(nearest_prediction[g], distance);
    }
  }
  return (numpy_mean(nearest_gt) + numpy_mean(nearest_prediction)) / 2.0;
}

}  // namespace olv2
