#include "olv2/evaluation/frechet.h"

#include <algorithm>
#include <cmath>

namespace olv2 {
namespace {

double point_distance(const std::array<float, 3>& a, const std::array<float, 3>& b) {
  const double dx = static_cast<double>(a[0]) - static_cast<double>(b[0]);
  const double dy = static_cast<double>(a[1]) - static_cast<double>(b[1]);
  const double dz = static_cast<double>(a[2]) - static_cast<double>(b[2]);
  return std::sqrt(dx * dx + dy * dy + dz * dz);
}

}  // namespace

double discrete_frechet(const Polyline& a, const Polyline& b) {
  // Coupling table filled one row of `a` at a time; `row[j]` holds C[i][j].
  std::vector<double> row(b.size());
  row[0] = point_distance(a[0], b[0]);
  for (std::size_t j = 1; j < b.size(); ++j) {
    row[j] = std::max(row[j - 1], point_distance(a[0], b[j]));
  }
  for (std::size_t i = 1; i < a.size(); ++i) {
    double diagonal = row[0];  // C[i-1][j-1] for the next column
    row[0] = std::max(row[0], point_distance(a[i], b[0]));
    for (std::size_t j = 1; j < b.size(); ++j) {
      const double above = row[j];
      const double reach = std::min({above, row[j - 1], diagonal});
      row[j] = std::max(reach, point_distance(a[i], b[j]));
      diagonal = above;
    }
  }
  return row.back();
}

double lane_relaxation_factor(const Polyline& ground_truth) {
  float nearest = INFINITY;
  for (const auto& q : ground_truth) {
    nearest = std::min(nearest, std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]));
  }
  return std::max(0.5, 1.0 - 5e-3 * static_cast<double>(nearest));
}

DistanceMatrix relaxed_frechet_matrix(const std::vector<Polyline>& ground_truth,
                                      const std::vector<Polyline>& predictions,
                                      double max_threshold) {
  DistanceMatrix distances(ground_truth.size(), predictions.size(), 0.0);
  for (std::size_t i = 0; i < ground_truth.size(); ++i) {
    const Polyline& gt = ground_truth[i];
    const double relaxation = lane_relaxation_factor(gt);
    for (std::size_t j = 0; j < predictions.size(); ++j) {
      const Polyline& pred = predictions[j];
      // Every coupling pairs the first points and the last points, so their distances bound the
      // Fréchet distance from below: pairs beyond every threshold skip the full table.
      const double lower_bound = std::max(point_distance(gt.front(), pred.front()),
                                          point_distance(gt.back(), pred.back()));
      distances.at(i, j) = lower_bound * relaxation >= max_threshold
                               ? lower_bound * relaxation
                               : discrete_frechet(pred, gt) * relaxation;
    }
  }
  return distances;
}

}  // namespace olv2
