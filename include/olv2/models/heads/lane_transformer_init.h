#pragma once
// The initialisation OpenLane-V2's and TopoNet's lane transformers share (their `init_weights`).
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>

namespace olv2 {

// Xavier-uniform on every parameter of `transformer` with more than one dimension (biases keep
// their defaults), then each deformable attention's own init, then `reference_points` Xavier
// with a zero bias.
void init_lane_transformer(torch::nn::Module& transformer, torch::nn::Linear& reference_points);

}  // namespace olv2
