#pragma once
// Activation checkpointing as PyTorch's `torch.utils.checkpoint`: a segment recomputed in backward
// with the same RNG and autocast state.
#include <ATen/core/Tensor.h>

#include <functional>
#include <vector>

namespace olv2 {

// A segment of the forward pass: tensors in, tensors out. It must be a pure
// function of its inputs, of `params` and of the RNG (it is run twice).
using CheckpointSegment = std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>&)>;

// Runs `segment` without keeping its intermediate activations and recomputes it
// during backward (PyTorch's reentrant `torch.utils.checkpoint`). The
// recomputation replays the CPU and CUDA RNG states and the autocast settings
// captured at forward time, so dropout masks and casts are the same and
// gradients equal those of the plain run exactly.
//
// `params` must list every tensor the segment reads that needs a gradient but
// is not among `inputs` (a module's parameters): their gradients are produced
// through this node, which also makes it fire when no input requires grad.
// Layers that update state when run (BatchNorm running statistics in training
// mode) update it a second time in backward, as in PyTorch.
std::vector<at::Tensor> checkpoint(CheckpointSegment segment, const std::vector<at::Tensor>& inputs,
                                   const std::vector<at::Tensor>& params);

// Single-tensor form of checkpoint().
at::Tensor checkpoint(std::function<at::Tensor(const at::Tensor&)> segment, const at::Tensor& input,
                      const std::vector<at::Tensor>& params);

}  // namespace olv2
