#include "olv2/evaluation/distance_matrix.h"

namespace olv2 {

DistanceMatrix select(const DistanceMatrix& matrix, const std::vector<std::size_t>& rows,
                      const std::vector<std::size_t>& cols) {
  DistanceMatrix selected(rows.size(), cols.size(), 0.0);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t c = 0; c < cols.size(); ++c) selected.at(r, c) = matrix.at(rows[r], cols[c]);
  }
  return selected;
}

}  // namespace olv2
