#include "olv2/data/bezier.h"

#include <cmath>
#include <string>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

double binomial(int n, int k) {
  double result = 1.0;
  for (int i = 1; i <= k; ++i) result = result * (n - k + i) / i;
  return std::round(result);
}

// The Bernstein basis value of control point j of a degree-n curve at t (as the
// original: C(n, j) (1 - t)^(n - j) t^j).
double bernstein(int n, int j, double t) {
  return binomial(n, j) * std::pow(1.0 - t, n - j) * std::pow(t, j);
}

// Solves the symmetric positive definite system A x = b in place (Gaussian
// elimination with partial pivoting); A is m x m row-major, b is m x cols.
void solve_in_place(std::vector<double>& A, std::vector<double>& b, int m, int cols) {
  for (int k = 0; k < m; ++k) {
    int pivot = k;
    for (int r = k + 1; r < m; ++r)
      if (std::abs(A[r * m + k]) > std::abs(A[pivot * m + k])) pivot = r;
    if (A[pivot * m + k] == 0.0) throw runtime_error("Bezier fit: singular normal equations");
    if (pivot != k) {
      for (int c = 0; c < m; ++c) std::swap(A[k * m + c], A[pivot * m + c]);
      for (int c = 0; c < cols; ++c) std::swap(b[k * cols + c], b[pivot * cols + c]);
    }
    for (int r = k + 1; r < m; ++r) {
      const double f = A[r * m + k] / A[k * m + k];
      for (int c = k; c < m; ++c) A[r * m + c] -= f * A[k * m + c];
      for (int c = 0; c < cols; ++c) b[r * cols + c] -= f * b[k * cols + c];
    }
  }
  for (int k = m - 1; k >= 0; --k) {
    for (int c = 0; c < cols; ++c) {
      double v = b[k * cols + c];
      for (int j = k + 1; j < m; ++j) v -= A[k * m + j] * b[j * cols + c];
      b[k * cols + c] = v / A[k * m + k];
    }
  }
}

}  // namespace

std::vector<double> fit_bezier_endpoint_fixed(const std::vector<double>& points, int num_points,
                                              int dims, int n_control) {
  if (n_control < 2) throw input_error("Bezier fit: n_control must be >= 2");
  if (num_points < n_control || num_points < 2) {
    throw input_error("Bezier fit: a polyline of " + std::to_string(num_points) +
                      " points cannot determine " + std::to_string(n_control) + " control points");
  }
  const int degree = n_control - 1;
  const int m = n_control - 2;  // free (interior) control points
  std::vector<double> control(static_cast<size_t>(n_control) * dims);
  const double* first = points.data();
  const double* last = points.data() + static_cast<size_t>(num_points - 1) * dims;
  for (int d = 0; d < dims; ++d) {
    control[d] = first[d];
    control[static_cast<size_t>(degree) * dims + d] = last[d];
  }
  if (m == 0) return control;

  // Normal equations over the interior points: (Ā^T Ā) X = Ā^T b.
  std::vector<double> normal(static_cast<size_t>(m) * m, 0.0);
  std::vector<double> rhs(static_cast<size_t>(m) * dims, 0.0);
  std::vector<double> row(n_control);
  for (int i = 1; i < num_points - 1; ++i) {
    const double t = static_cast<double>(i) / (num_points - 1);
    for (int j = 0; j < n_control; ++j) row[j] = bernstein(degree, j, t);
    const double* p = points.data() + static_cast<size_t>(i) * dims;
    for (int a = 0; a < m; ++a) {
      for (int c = 0; c < m; ++c) normal[a * m + c] += row[a + 1] * row[c + 1];
      for (int d = 0; d < dims; ++d) {
        const double target = p[d] - row[0] * first[d] - row[degree] * last[d];
        rhs[a * dims + d] += row[a + 1] * target;
      }
    }
  }
  solve_in_place(normal, rhs, m, dims);
  for (int a = 0; a < m; ++a)
    for (int d = 0; d < dims; ++d)
      control[static_cast<size_t>(a + 1) * dims + d] = rhs[a * dims + d];
  return control;
}

std::vector<double> evaluate_bezier(const std::vector<double>& control_points, int n_control,
                                    int dims, double t) {
  std::vector<double> point(dims, 0.0);
  for (int j = 0; j < n_control; ++j) {
    const double w = bernstein(n_control - 1, j, t);
    for (int d = 0; d < dims; ++d)
      point[d] += w * control_points[static_cast<size_t>(j) * dims + d];
  }
  return point;
}

}  // namespace olv2
