#include "olv2/data/camera_matrices.h"

namespace olv2 {

Matrix4d multiply4(const Matrix4d& a, const Matrix4d& b) {
  Matrix4d out{};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      double sum = 0.0;
      for (int k = 0; k < 4; ++k) sum += a[r * 4 + k] * b[k * 4 + c];
      out[r * 4 + c] = sum;
    }
  return out;
}

Matrix4d embed_intrinsic(const Matrix3d& K) {
  Matrix4d out{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) out[r * 4 + c] = K[r * 3 + c];
  return out;
}

Matrix4d ego_to_camera(const Matrix3d& rotation, const std::array<double, 3>& t) {
  Matrix4d out{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  for (int r = 0; r < 3; ++r) {
    double shift = 0.0;
    for (int c = 0; c < 3; ++c) {
      out[r * 4 + c] = rotation[r * 3 + c];
      shift += t[c] * rotation[r * 3 + c];
    }
    out[r * 4 + 3] = -shift;
  }
  return out;
}

}  // namespace olv2
