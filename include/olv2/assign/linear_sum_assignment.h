#pragma once
// The minimum-cost matching under the Hungarian assigners: SciPy's `linear_sum_assignment`, ported
// with its tie-breaking.
#include <cstdint>
#include <vector>

namespace olv2 {

// Row/column pairs of a minimum-cost one-to-one assignment, rows ascending.
struct Assignment {
  std::vector<int64_t> rows;
  std::vector<int64_t> cols;
};

// Minimum-cost assignment of a dense, row-major `num_rows` x `num_cols` cost matrix; rectangular
// matrices match min(num_rows, num_cols) pairs. Same contract and results as SciPy's
// `linear_sum_assignment` (shortest augmenting paths, Crouse 2016), including its tie-breaking:
// rows are augmented in ascending order; the unvisited columns are scanned in a list that starts
// in descending index order and loses a visited column by swapping in its last entry; among
// columns of equal path cost the scan keeps the first one met, unless a later one is unassigned
// (then the last unassigned one met wins). A constant matrix therefore yields the identity
// matching. A tall matrix is solved transposed and its pairs are returned sorted by row.
// Throws `olv2::runtime_error` on NaN or -inf entries, or when no finite assignment exists.
Assignment linear_sum_assignment(const std::vector<double>& cost, int64_t num_rows,
                                 int64_t num_cols);

}  // namespace olv2
