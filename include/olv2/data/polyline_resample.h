#pragma once
// A polyline resampled at equal steps of its length, as TopoNet resamples lanes (shapely's
// LineString.interpolate).
#include <array>
#include <cstdint>
#include <vector>

namespace olv2 {

// `points` resampled to `count` points at equal steps of the polyline's length in the ground
// plane (x, y; shapely measures LineStrings in 2-D), z interpolated along; the first and last
// points are kept. A polyline of one point, or of zero length, gives `count` copies of its first
// point.
std::vector<std::array<double, 3>> resample_by_length(
    const std::vector<std::array<double, 3>>& points, int64_t count);

}  // namespace olv2
