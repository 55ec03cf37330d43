#include "olv2/assign/linear_sum_assignment.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Solver state for a wide matrix (rows <= cols): dual potentials, the partial matching and the
// scratch space of one shortest-path search.
class ShortestAugmentingPath {
 public:
  ShortestAugmentingPath(const std::vector<double>& cost, int64_t rows, int64_t cols)
      : cost_(cost),
        rows_(rows),
        cols_(cols),
        row_potential_(rows, 0.0),
        col_potential_(cols, 0.0),
        col_of_row_(rows, -1),
        row_of_col_(cols, -1),
        path_cost_(cols),
        predecessor_(cols, -1),
        row_visited_(rows),
        col_visited_(cols),
        unvisited_(cols) {}

  std::vector<int64_t> solve() {
    for (int64_t row = 0; row < rows_; ++row) {
      double path_length = 0.0;
      const int64_t sink = shortest_path_from(row, &path_length);
      update_potentials(row, path_length);
      augment(row, sink);
    }
    return col_of_row_;
  }

 private:
  // Dijkstra over reduced costs from the free row `start` to the nearest unassigned column.
  int64_t shortest_path_from(int64_t start, double* path_length) {
    std::fill(row_visited_.begin(), row_visited_.end(), false);
    std::fill(col_visited_.begin(), col_visited_.end(), false);
    std::fill(path_cost_.begin(), path_cost_.end(), kInf);
    int64_t num_unvisited = cols_;
    for (int64_t k = 0; k < cols_; ++k) unvisited_[k] = cols_ - 1 - k;

    double reached = 0.0;
    int64_t row = start;
    while (true) {
      row_visited_[row] = true;
      int64_t best_slot = -1;
      double best = kInf;
      for (int64_t slot = 0; slot < num_unvisited; ++slot) {
        const int64_t col = unvisited_[slot];
        const double reduced =
            reached + cost_[row * cols_ + col] - row_potential_[row] - col_potential_[col];
        if (reduced < path_cost_[col]) {
          predecessor_[col] = row;
          path_cost_[col] = reduced;
        }
        if (path_cost_[col] < best || (path_cost_[col] == best && row_of_col_[col] == -1)) {
          best = path_cost_[col];
          best_slot = slot;
        }
      }
      if (best == kInf) {
        throw runtime_error("linear_sum_assignment: the cost matrix has no finite assignment");
      }
      reached = best;
      const int64_t col = unvisited_[best_slot];
      col_visited_[col] = true;
      unvisited_[best_slot] = unvisited_[--num_unvisited];
      if (row_of_col_[col] == -1) {
        *path_length = reached;
        return col;
      }
      row = row_of_col_[col];
    }
  }

  void update_potentials(int64_t start, double path_length) {
    row_potential_[start] += path_length;
    for (int64_t row = 0; row < rows_; ++row) {
      if (row_visited_[row] && row != start) {
        row_potential_[row] += path_length - path_cost_[col_of_row_[row]];
      }
    }
    for (int64_t col = 0; col < cols_; ++col) {
      if (col_visited_[col]) col_potential_[col] -= path_length - path_cost_[col];
    }
  }

  void augment(int64_t start, int64_t sink) {
    int64_t col = sink;
    while (true) {
      const int64_t row = predecessor_[col];
      row_of_col_[col] = row;
      std::swap(col_of_row_[row], col);
      if (row == start) break;
    }
  }

  const std::vector<double>& cost_;
  int64_t rows_;
  int64_t cols_;
  std::vector<double> row_potential_;
  std::vector<double> col_potential_;
  std::vector<int64_t> col_of_row_;
  std::vector<int64_t> row_of_col_;
  std::vector<double> path_cost_;
  std::vector<int64_t> predecessor_;
  std::vector<bool> row_visited_;
  std::vector<bool> col_visited_;
  std::vector<int64_t> unvisited_;
};

void check_entries(const std::vector<double>& cost, int64_t num_rows, int64_t num_cols) {
  if (num_rows < 0 || num_cols < 0 || static_cast<int64_t>(cost.size()) != num_rows * num_cols) {
    throw runtime_error("linear_sum_assignment: cost has " + std::to_string(cost.size()) +
                        " entries, expected " + std::to_string(num_rows) + " x " +
                        std::to_string(num_cols));
  }
  for (double value : cost) {
    if (std::isnan(value) || value == -kInf) {
      throw runtime_error("linear_sum_assignment: the cost matrix contains NaN or -inf");
    }
  }
}

}  // namespace

Assignment linear_sum_assignment(const std::vector<double>& cost, int64_t num_rows,
                                 int64_t num_cols) {
  check_entries(cost, num_rows, num_cols);
  Assignment result;
  if (num_rows == 0 || num_cols == 0) return result;

  if (num_rows <= num_cols) {
    const std::vector<int64_t> col_of_row =
        ShortestAugmentingPath(cost, num_rows, num_cols).solve();
    for (int64_t row = 0; row < num_rows; ++row) {
      result.rows.push_back(row);
      result.cols.push_back(col_of_row[row]);
    }
    return result;
  }

  std::vector<double> transposed(cost.size());
  for (int64_t r = 0; r < num_rows; ++r) {
    for (int64_t c = 0; c < num_cols; ++c) transposed[c * num_rows + r] = cost[r * num_cols + c];
  }
  const std::vector<int64_t> row_of_col =
      ShortestAugmentingPath(transposed, num_cols, num_rows).solve();
  std::vector<int64_t> order(num_cols);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int64_t a, int64_t b) { return row_of_col[a] < row_of_col[b]; });
  for (int64_t col : order) {
    result.rows.push_back(row_of_col[col]);
    result.cols.push_back(col);
  }
  return result;
}

}  // namespace olv2
