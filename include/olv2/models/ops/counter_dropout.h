#pragma once
// Dropout whose mask is a pure function of seed and element index, drawn again in backward instead
// of kept.
#include <ATen/core/Tensor.h>

#include <cstdint>

namespace olv2 {

// Dropout whose mask is a pure function of (seed, element index), so that a memory-light
// kernel can apply it to one block of a large tensor in forward and draw the identical mask
// again in backward instead of keeping it. Element i of the virtual tensor is dropped when the
// high 32 bits of SplitMix64's i-th output from `seed` fall below p * 2^32: drops are
// independent with probability p (to 2^-32), and kept elements are scaled by 1 / (1 - p) as
// torch.dropout does.

// A fresh seed from the default CPU generator (so torch::manual_seed makes runs repeatable and
// activation checkpointing, which restores that generator, draws the same seed again).
uint64_t draw_dropout_seed();

// Where a block lies in the virtual [N, total_rows, C] tensor the mask is defined over: the
// block is [N, rows, C] and holds rows [row_begin, row_begin + rows) of every batch entry.
struct DropoutBlock {
  int64_t total_rows = 0;
  int64_t row_begin = 0;
};

// Applies the mask in place to every tensor of `blocks` (all contiguous [N, rows, C] of the same
// shape, floating point): x = keep ? x / (1 - p) : 0. One mask for all, drawn once.
void counter_dropout_(at::TensorList blocks, DropoutBlock where, double p, uint64_t seed);

// The same mask for kernels that apply it themselves: kept[c] = whether element `first` + c of
// the virtual tensor is kept (for [N, total_rows, C], element (n, row, c) is
// (n * total_rows + row) * C + c).
void counter_dropout_kept(uint8_t* kept, int64_t count, uint64_t first, double p, uint64_t seed);

}  // namespace olv2
