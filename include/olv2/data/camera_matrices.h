#pragma once
// The 3x3 and 4x4 matrices of camera geometry, built as OpenLane-V2's dataset builds them.
#include <array>

namespace olv2 {

// Row-major float64 matrices of the camera geometry, as the original dataset builds them.
using Matrix3d = std::array<double, 9>;
using Matrix4d = std::array<double, 16>;

Matrix4d multiply4(const Matrix4d& a, const Matrix4d& b);

// K in the top-left of a 4x4 identity (the original's `viewpad`).
Matrix4d embed_intrinsic(const Matrix3d& K);

// Ego -> camera as a column-vector 4x4: [[rotation, -rotation t], [0, 1]], where `rotation`
// is the inverse of the camera -> ego rotation and `t` the camera's position.
Matrix4d ego_to_camera(const Matrix3d& rotation, const std::array<double, 3>& t);

}  // namespace olv2
