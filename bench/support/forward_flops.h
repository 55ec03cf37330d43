#pragma once
// Counts the floating-point operations of a model's forward pass on the calling thread: matrix
// products (mm, addmm, bmm, baddbmm: 2 m k n each), convolutions (2 multiply-adds per weight
// and output position) and the DETR heads' attention (olv2::dot_product_attention: q k^T and
// the weighted sum, 4 B H Lq Lk D, whichever kernel runs it). An operation inside one already
// counted (the products a convolution or the attention kernel makes) is not counted again;
// element-wise work, normalisation and sampling are not counted, as in the usual model-FLOPs
// figure. A training step's model FLOPs are 3 x the forward's (backward = 2 x forward).
#include <ATen/record_function.h>
#include <c10/util/ArrayRef.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace olv2::bench {

class ForwardFlopCounter {
 public:
  ForwardFlopCounter() {
    state() = State{};
    handle_ = at::addThreadLocalCallback(
        at::RecordFunctionCallback(&ForwardFlopCounter::on_start, &ForwardFlopCounter::on_end)
            .needsInputs(true));
  }
  ~ForwardFlopCounter() { at::removeCallback(handle_); }
  ForwardFlopCounter(const ForwardFlopCounter&) = delete;
  ForwardFlopCounter& operator=(const ForwardFlopCounter&) = delete;

  double flops() const { return state().flops; }

 private:
  struct State {
    double flops = 0.0;
    std::vector<bool> counted_scopes;  // per open operator: whether it was counted
    int64_t open_counted = 0;
  };

  static State& state() {
    thread_local State s;
    return s;
  }

  static std::vector<int64_t> sizes(const c10::IValue& value) {
    return value.isTensor() ? value.toTensor().sizes().vec() : std::vector<int64_t>{};
  }

  static double product(const std::vector<int64_t>& dims, size_t from, size_t to) {
    double p = 1.0;
    for (size_t i = from; i < to && i < dims.size(); ++i) p *= static_cast<double>(dims[i]);
    return p;
  }

  static double convolution_flops(c10::ArrayRef<const c10::IValue> inputs) {
    const std::vector<int64_t> input = sizes(inputs[0]), weight = sizes(inputs[1]);
    if (input.size() < 3 || weight.size() != input.size()) return 0.0;
    const bool transposed = inputs.size() > 6 && inputs[6].isBool() && inputs[6].toBool();
    const size_t spatial = input.size() - 2;
    const double kernel = product(weight, 2, weight.size());
    if (transposed) {  // weight [Cin, Cout / groups, k...]: every input position scatters
      return 2.0 * input[0] * product(input, 1, input.size()) * weight[1] * kernel;
    }
    const auto list = [&](size_t index, int64_t fallback) {
      std::vector<int64_t> values(spatial, fallback);
      if (index < inputs.size() && inputs[index].isIntList()) {
        const auto given = inputs[index].toIntVector();
        for (size_t i = 0; i < spatial; ++i) values[i] = given.size() == 1 ? given[0] : given[i];
      }
      return values;
    };
    const std::vector<int64_t> stride = list(3, 1), padding = list(4, 0), dilation = list(5, 1);
    double outputs = 1.0;
    for (size_t i = 0; i < spatial; ++i) {
      const int64_t extent = input[2 + i] + 2 * padding[i] - dilation[i] * (weight[2 + i] - 1) - 1;
      outputs *= static_cast<double>(extent / stride[i] + 1);
    }
    // weight [Cout, Cin / groups, k...]
    return 2.0 * input[0] * outputs * weight[0] * weight[1] * kernel;
  }

  static double flops_of(const char* name, c10::ArrayRef<const c10::IValue> inputs) {
    const auto is = [&](const char* op) { return std::strcmp(name, op) == 0; };
    if (is("aten::mm") && inputs.size() >= 2) {
      const auto a = sizes(inputs[0]), b = sizes(inputs[1]);
      return a.size() == 2 && b.size() == 2 ? 2.0 * a[0] * a[1] * b[1] : 0.0;
    }
    if (is("aten::addmm") && inputs.size() >= 3) {
      const auto a = sizes(inputs[1]), b = sizes(inputs[2]);
      return a.size() == 2 && b.size() == 2 ? 2.0 * a[0] * a[1] * b[1] : 0.0;
    }
    if ((is("aten::bmm") || is("aten::baddbmm")) && inputs.size() >= 2) {
      const size_t first = is("aten::bmm") ? 0 : 1;
      const auto a = sizes(inputs[first]), b = sizes(inputs[first + 1]);
      return a.size() == 3 && b.size() == 3 ? 2.0 * a[0] * a[1] * a[2] * b[2] : 0.0;
    }
    if (is("aten::convolution") && inputs.size() >= 2) return convolution_flops(inputs);
    if (is("olv2::dot_product_attention") && inputs.size() >= 2) {
      const auto q = sizes(inputs[0]), k = sizes(inputs[1]);  // [B, H, L, D]
      return q.size() == 4 && k.size() == 4 ? 4.0 * q[0] * q[1] * q[2] * k[2] * q[3] : 0.0;
    }
    return -1.0;  // not an operation this counter counts
  }

  static std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
    State& s = state();
    const double flops = s.open_counted > 0 ? -1.0 : flops_of(fn.name(), fn.inputs());
    const bool counted = flops >= 0.0;
    if (counted) {
      s.flops += flops;
      ++s.open_counted;
    }
    s.counted_scopes.push_back(counted);
    return nullptr;
  }

  static void on_end(const at::RecordFunction& /*fn*/, at::ObserverContext* /*context*/) {
    State& s = state();
    if (s.counted_scopes.empty()) return;
    if (s.counted_scopes.back()) --s.open_counted;
    s.counted_scopes.pop_back();
  }

  at::CallbackHandle handle_;
};

}  // namespace olv2::bench
