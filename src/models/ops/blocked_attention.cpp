#include "olv2/models/ops/blocked_attention.h"

#include <torch/torch.h>

#include <algorithm>
#include <limits>

#include "olv2/models/ops/counter_dropout.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

// The operands flattened to [B * H, L, D], and how to split the queries.
struct AttentionOperands {
  at::Tensor q, k, v, mask;  // mask [B, 1, 1, Lk] or undefined
  int64_t batch = 0, heads = 0, block_rows = 0;
  double dropout_p = 0.0;
  uint64_t seed = 0;

  int64_t queries() const { return q.size(1); }
  int64_t rows_in(int64_t begin) const { return std::min(block_rows, queries() - begin); }
  at::Tensor q_block(int64_t begin) const { return q.narrow(1, begin, rows_in(begin)); }
  DropoutBlock where(int64_t begin) const { return {queries(), begin}; }
};

// Block-sized scratch tensors, allocated once per call and reused by every block (fresh
// allocations of this size would each be page-faulted in again).
class BlockBuffers {
 public:
  BlockBuffers(const AttentionOperands& op, int count) {
    for (int i = 0; i < count; ++i) {
      flat_.push_back(torch::empty({op.q.size(0) * op.block_rows * op.k.size(1)}, op.q.options()));
    }
  }
  // Buffer i as a contiguous [B * H, rows, Lk].
  at::Tensor at(size_t i, const AttentionOperands& op, int64_t rows) const {
    const int64_t n = op.q.size(0), keys = op.k.size(1);
    return flat_[i].narrow(0, 0, n * rows * keys).view({n, rows, keys});
  }

 private:
  std::vector<at::Tensor> flat_;
};

// weights = softmax(q k^T) of one block of queries, with the padded keys at -inf; `scores` is
// scratch. Both [B * H, rows, Lk].
void block_weights(const AttentionOperands& op, int64_t begin, at::Tensor& scores,
                   at::Tensor& weights) {
  at::bmm_out(scores, op.q_block(begin), op.k.transpose(1, 2));
  if (op.mask.defined()) {
    scores.view({op.batch, op.heads, scores.size(1), scores.size(2)})
        .masked_fill_(op.mask, -std::numeric_limits<float>::infinity());
  }
  at::_softmax_out(weights, scores, -1, false);
}

class BlockedAttentionFunction : public torch::autograd::Function<BlockedAttentionFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& q, const at::Tensor& k,
                            const at::Tensor& v, const c10::optional<at::Tensor>& padding,
                            int64_t heads, int64_t block_rows, double dropout_p, int64_t seed) {
    const at::Tensor mask = padding.value_or(at::Tensor());
    ctx->save_for_backward({q, k, v, mask});
    ctx->saved_data["heads"] = heads;
    ctx->saved_data["block_rows"] = block_rows;
    ctx->saved_data["dropout_p"] = dropout_p;
    ctx->saved_data["seed"] = seed;
    const AttentionOperands op = operands(q, k, v, mask, heads, block_rows, dropout_p, seed);
    const BlockBuffers buffers(op, 2);
    at::Tensor out = torch::empty_like(op.q);
    for (int64_t begin = 0; begin < op.queries(); begin += op.block_rows) {
      const int64_t rows = op.rows_in(begin);
      at::Tensor scores = buffers.at(0, op, rows), weights = buffers.at(1, op, rows);
      block_weights(op, begin, scores, weights);
      if (op.dropout_p > 0.0) counter_dropout_({weights}, op.where(begin), op.dropout_p, op.seed);
      at::Tensor out_block = out.narrow(1, begin, rows);
      at::bmm_out(out_block, weights, op.v);
    }
    return out;
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const AttentionOperands op =
        operands(saved[0], saved[1], saved[2], saved[3], ctx->saved_data["heads"].toInt(),
                 ctx->saved_data["block_rows"].toInt(), ctx->saved_data["dropout_p"].toDouble(),
                 ctx->saved_data["seed"].toInt());
    const at::Tensor grad_out = grad_outputs[0].contiguous();
    at::Tensor grad_q = torch::empty_like(op.q);
    at::Tensor grad_k = torch::zeros_like(op.k);
    at::Tensor grad_v = torch::zeros_like(op.v);
    const BlockBuffers buffers(op, 3);
    for (int64_t begin = 0; begin < op.queries(); begin += op.block_rows) {
      const int64_t rows = op.rows_in(begin);
      // Buffer 0 holds the scores, then the dropped weights, then the scores' gradient.
      at::Tensor scratch = buffers.at(0, op, rows), weights = buffers.at(1, op, rows),
                 grad_dropped = buffers.at(2, op, rows);
      block_weights(op, begin, scratch, weights);
      const at::Tensor grad_block = grad_out.narrow(1, begin, rows);
      at::bmm_out(grad_dropped, grad_block, op.v.transpose(1, 2));
      if (op.dropout_p > 0.0) {
        at::Tensor dropped = scratch.copy_(weights);
        counter_dropout_({dropped, grad_dropped}, op.where(begin), op.dropout_p, op.seed);
        grad_v.baddbmm_(dropped.transpose(1, 2), grad_block);
      } else {
        grad_v.baddbmm_(weights.transpose(1, 2), grad_block);
      }
      at::Tensor grad_scores =
          at::_softmax_backward_data_out(scratch, grad_dropped, weights, -1, weights.scalar_type());
      at::Tensor grad_q_block = grad_q.narrow(1, begin, rows);
      at::bmm_out(grad_q_block, grad_scores, op.k);
      grad_k.baddbmm_(grad_scores.transpose(1, 2), op.q_block(begin));
    }
    return {grad_q, grad_k, grad_v, {}, {}, {}, {}, {}};
  }

 private:
  static AttentionOperands operands(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                    const at::Tensor& mask, int64_t heads, int64_t block_rows,
                                    double dropout_p, int64_t seed) {
    AttentionOperands op;
    op.q = q;
    op.k = k;
    op.v = v;
    op.mask = mask;
    op.batch = q.size(0) / heads;
    op.heads = heads;
    op.block_rows = block_rows;
    op.dropout_p = dropout_p;
    op.seed = static_cast<uint64_t>(seed);
    return op;
  }
};

}  // namespace

at::Tensor blocked_attention(const at::Tensor& scaled_q, const at::Tensor& k, const at::Tensor& v,
                             const at::Tensor& key_padding_mask, double dropout_p, uint64_t seed,
                             int64_t block_elements) {
  if (scaled_q.dim() != 4 || k.dim() != 4 || k.sizes() != v.sizes() ||
      scaled_q.sizes().slice(0, 2) != k.sizes().slice(0, 2) || scaled_q.size(3) != k.size(3) ||
      k.scalar_type() != scaled_q.scalar_type() || v.scalar_type() != scaled_q.scalar_type()) {
    throw runtime_error(
        "blocked_attention: expected q [B, H, Lq, D], k and v [B, H, Lk, D] of one dtype");
  }
  const int64_t batch = scaled_q.size(0), heads = scaled_q.size(1), queries = scaled_q.size(2),
                keys = k.size(2), dims = k.size(3);
  at::Tensor mask;
  if (key_padding_mask.defined()) {
    if (key_padding_mask.sizes() != at::IntArrayRef{batch, keys}) {
      throw runtime_error("blocked_attention: key_padding_mask must be [B, Lk]");
    }
    // A mask that ignores no key changes nothing: skip it.
    if (key_padding_mask.any().item<bool>()) {
      mask = key_padding_mask.to(at::kBool).view({batch, 1, 1, keys});
    }
  }
  const int64_t block_rows =
      std::clamp<int64_t>(block_elements / std::max<int64_t>(batch * heads * keys, 1), 1,
                          std::max<int64_t>(queries, 1));
  const auto flat = [&](const at::Tensor& x, int64_t length) {
    return x.reshape({batch * heads, length, dims}).contiguous();
  };
  return BlockedAttentionFunction::apply(
             flat(scaled_q, queries), flat(k, keys), flat(v, keys),
             mask.defined() ? c10::optional<at::Tensor>(mask) : c10::nullopt, heads, block_rows,
             dropout_p, static_cast<int64_t>(seed))
      .view({batch, heads, queries, dims});
}

}  // namespace olv2
