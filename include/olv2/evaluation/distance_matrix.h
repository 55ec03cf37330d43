#pragma once
// The ground-truth by prediction distance matrix of one frame that matching works on.
#include <cstddef>
#include <vector>

namespace olv2 {

// Distances between every ground-truth object (row) and every prediction (column) of one frame.
struct DistanceMatrix {
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::vector<double> values;  // [rows * cols], row-major

  DistanceMatrix() = default;
  DistanceMatrix(std::size_t num_rows, std::size_t num_cols, double fill)
      : rows(num_rows), cols(num_cols), values(num_rows * num_cols, fill) {}

  double& at(std::size_t row, std::size_t col) { return values[row * cols + col]; }
  double at(std::size_t row, std::size_t col) const { return values[row * cols + col]; }
};

// The sub-matrix of the given rows and columns, in the given order.
DistanceMatrix select(const DistanceMatrix& matrix, const std::vector<std::size_t>& rows,
                      const std::vector<std::size_t>& cols);

}  // namespace olv2
