#include "olv2/models/ops/counter_dropout.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/Parallel.h>

#include <cmath>
#include <mutex>

#include "olv2/util/error.h"
#include "olv2/util/splitmix64.h"

namespace olv2 {
namespace {

// The hash vectorises with AVX-512's 64-bit multiplies, six times faster than scalar code:
// GCC (11 on, which names the x86-64 levels) builds clones for v4 and v3 and picks one at load
// time.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11 && defined(__x86_64__) && \
    defined(__linux__)
#define OLV2_CLONES_FOR_X86_LEVELS \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define OLV2_CLONES_FOR_X86_LEVELS
#endif

// kept[c] = whether element base + c is kept.
OLV2_CLONES_FOR_X86_LEVELS
void fill_kept(uint8_t* __restrict kept, int64_t count, uint64_t base, uint64_t seed,
               uint32_t threshold) {
  for (int64_t c = 0; c < count; ++c) {
    const auto u = static_cast<uint32_t>(
        splitmix64_finalize(seed + (base + static_cast<uint64_t>(c) + 1) * kSplitMix64Increment) >>
        32);
    kept[c] = u >= threshold;
  }
}

void check_probability(double p) {
  if (!(p >= 0.0 && p < 1.0)) {
    throw runtime_error("counter_dropout: expected 0 <= p < 1, got " + std::to_string(p));
  }
}

uint32_t drop_threshold(double p) {
  return static_cast<uint32_t>(std::min(std::ldexp(p, 32), 4294967295.0));
}

}  // namespace

uint64_t draw_dropout_seed() {
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  return at::check_generator<at::CPUGeneratorImpl>(generator)->random64();
}

void counter_dropout_(at::TensorList blocks, DropoutBlock where, double p, uint64_t seed) {
  if (blocks.empty()) return;
  const at::Tensor& first = blocks[0];
  check_probability(p);
  for (const at::Tensor& block : blocks) {
    if (block.dim() != 3 || !block.is_contiguous() || block.sizes() != first.sizes() ||
        block.scalar_type() != first.scalar_type() || !block.device().is_cpu()) {
      throw runtime_error(
          "counter_dropout_: expected contiguous CPU blocks [N, rows, C] of one shape and dtype");
    }
  }
  const int64_t batch = first.size(0), rows = first.size(1), cols = first.size(2);
  if (where.row_begin < 0 || where.row_begin + rows > where.total_rows) {
    throw runtime_error("counter_dropout_: rows [" + std::to_string(where.row_begin) + ", " +
                        std::to_string(where.row_begin + rows) + ") outside the " +
                        std::to_string(where.total_rows) + " rows of the mask");
  }
  const uint32_t threshold = drop_threshold(p);
  AT_DISPATCH_FLOATING_TYPES_AND2(
      at::kBFloat16, at::kHalf, first.scalar_type(), "counter_dropout_", [&] {
        // As torch.dropout: x times a noise of 0 or 1 / (1 - p) in x's dtype, the quotient taken in
        // the dtype's compute type.
        using opmath_t = at::opmath_type<scalar_t>;
        const auto scale = static_cast<scalar_t>(opmath_t{1} / static_cast<opmath_t>(1.0 - p));
        const auto zero = static_cast<scalar_t>(0);
        std::vector<scalar_t*> data;
        for (const at::Tensor& block : blocks) data.push_back(block.data_ptr<scalar_t>());
        at::parallel_for(0, batch * rows, 8, [&](int64_t begin, int64_t end) {
          std::vector<uint8_t> kept(static_cast<size_t>(cols));
          for (int64_t row = begin; row < end; ++row) {
            const int64_t n = row / rows, r = row % rows;
            fill_kept(kept.data(), cols,
                      static_cast<uint64_t>((n * where.total_rows + where.row_begin + r) * cols),
                      seed, threshold);
            for (scalar_t* block : data) {
              scalar_t* x = block + row * cols;
              for (int64_t c = 0; c < cols; ++c) x[c] = x[c] * (kept[c] != 0 ? scale : zero);
            }
          }
        });
      });
}

void counter_dropout_kept(uint8_t* kept, int64_t count, uint64_t first, double p, uint64_t seed) {
  check_probability(p);
  fill_kept(kept, count, first, seed, drop_threshold(p));
}

}  // namespace olv2
