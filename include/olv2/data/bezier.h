#pragma once
// Bezier curves of lane centerlines: the original's endpoint-fixed fit and their evaluation.
#include <vector>

namespace olv2 {

// Fits a Bezier curve of `n_control` control points to a polyline of
// `num_points` points of `dims` coordinates (row-major), parameterised by index
// (t_i = i / (num_points - 1)), with the first and last control points fixed to
// the polyline's end points and the interior ones found by least squares in
// double precision (the original's `bezier_Endpointfixed`). Returns n_control x
// dims values, row-major. Throws when num_points < n_control.
std::vector<double> fit_bezier_endpoint_fixed(const std::vector<double>& points, int num_points,
                                              int dims, int n_control);

// Evaluates a Bezier curve (n_control x dims control points) at parameter t in
// [0, 1].
std::vector<double> evaluate_bezier(const std::vector<double>& control_points, int n_control,
                                    int dims, double t);

}  // namespace olv2
