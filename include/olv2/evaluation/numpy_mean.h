#pragma once
// numpy's pairwise summation and mean, so that metric averages round bit for bit as the devkit's.
#include <cstddef>
#include <vector>

namespace olv2 {

// numpy's pairwise summation of a contiguous array, in the array's own precision. Reproduces the
// rounding of `np.mean` on float32 metric arrays bit for bit.
template <typename T>
T numpy_pairwise_sum(const T* values, std::size_t n) {
  if (n < 8) {
    T sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += values[i];
    return sum;
  }
  if (n <= 128) {
    T r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = values[j];
    std::size_t i = 8;
    for (; i < n - n % 8; i += 8) {
      for (std::size_t j = 0; j < 8; ++j) r[j] += values[i + j];
    }
    T sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) sum += values[i];
    return sum;
  }
  std::size_t half = n / 2;
  half -= half % 8;
  return numpy_pairwise_sum(values, half) + numpy_pairwise_sum(values + half, n - half);
}

// `np.mean` of a 1-D array: pairwise sum, then one division, both in T.
template <typename T>
T numpy_mean(const std::vector<T>& values) {
  return numpy_pairwise_sum(values.data(), values.size()) / static_cast<T>(values.size());
}

}  // namespace olv2
