#pragma once
// A pipeline transform, as mmcv's, and the per-sample random draws that keep augmentation
// deterministic.
#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "olv2/data/pipeline_data.h"

namespace olv2 {

// The random generator of one sample's augmentation, derived from (seed, epoch,
// sample index) only, so results never depend on threads or loading order.
std::mt19937_64 make_sample_rng(uint64_t seed, int64_t epoch, int64_t sample_index);

// Draws with a fixed definition (the standard distributions differ between
// libraries).
double draw_uniform(std::mt19937_64& rng, double low,
                    double high);             // [low, high)
bool draw_coin(std::mt19937_64& rng);         // fair 0/1
int draw_index(std::mt19937_64& rng, int n);  // 0 .. n-1

// One step of a data pipeline (an mmcv pipeline transform).
class Transform {
 public:
  virtual ~Transform() = default;
  virtual const char* type() const = 0;  // the original's transform name
  virtual void apply(PipelineData& data, std::mt19937_64& rng) const = 0;
};

}  // namespace olv2
