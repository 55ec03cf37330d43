#pragma once
// Every difference between Debian's LibTorch 1.13 and the LibTorch 2.x inside PyTorch lives here.
#include <ATen/autocast_mode.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/layer_norm.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>
#include <c10/util/string_utils.h>
#include <torch/version.h>

#include <string>

#define OLV2_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||       \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

// c10::Allocator::allocate is const before 2.3; from 2.3 on it is not, and an allocator also
// implements copy_data.
#if OLV2_TORCH_AT_LEAST(2, 3)
#define OLV2_ALLOCATOR_ALLOCATE_CONST
#define OLV2_ALLOCATOR_HAS_COPY_DATA 1
#else
#define OLV2_ALLOCATOR_ALLOCATE_CONST const
#define OLV2_ALLOCATOR_HAS_COPY_DATA 0
#endif

// Gloo's reduce-scatter of one flat tensor (`_reduce_scatter_base`): implemented in the 2.11
// sources; older Gloo process groups refuse it.
#define OLV2_GLOO_HAS_REDUCE_SCATTER OLV2_TORCH_AT_LEAST(2, 11)

namespace c10d {
class ProcessGroup;
class Backend;
}  // namespace c10d

namespace olv2::compat {

// The class a c10d process group implementation (Gloo, NCCL) derives from: ProcessGroup in 1.x,
// Backend from 2.0 on.
#if OLV2_TORCH_AT_LEAST(2, 0)
using C10dBackend = c10d::Backend;
#else
using C10dBackend = c10d::ProcessGroup;
#endif

inline bool autocast_enabled(c10::DeviceType device) {
#if OLV2_TORCH_AT_LEAST(2, 4)
  return at::autocast::is_autocast_enabled(device);
#else
  return device == c10::DeviceType::CUDA ? at::autocast::is_enabled()
                                         : at::autocast::is_cpu_enabled();
#endif
}

inline void set_autocast_enabled(c10::DeviceType device, bool enabled) {
#if OLV2_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_enabled(device, enabled);
#else
  if (device == c10::DeviceType::CUDA) {
    at::autocast::set_enabled(enabled);
  } else {
    at::autocast::set_cpu_enabled(enabled);
  }
#endif
}

inline c10::ScalarType autocast_dtype(c10::DeviceType device) {
#if OLV2_TORCH_AT_LEAST(2, 4)
  return at::autocast::get_autocast_dtype(device);
#else
  return device == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype()
                                         : at::autocast::get_autocast_cpu_dtype();
#endif
}

inline void set_autocast_dtype(c10::DeviceType device, c10::ScalarType dtype) {
#if OLV2_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_dtype(device, dtype);
#else
  if (device == c10::DeviceType::CUDA) {
    at::autocast::set_autocast_gpu_dtype(dtype);
  } else {
    at::autocast::set_autocast_cpu_dtype(dtype);
  }
#endif
}

// LayerNorm under autocast. 1.13's CPU LayerNorm rejects a bf16 input with fp32 weights
// ("expected scalar type BFloat16 but found Float"), where CUDA autocast runs it in fp32: a
// lower-precision input is normalised in the weights' dtype on every version, so both devices
// give an fp32 result.
inline at::Tensor layer_norm(const at::Tensor& input, const at::Tensor& weight,
                             const at::Tensor& bias, double eps) {
  const c10::ScalarType dtype = weight.defined() ? weight.scalar_type() : c10::ScalarType::Float;
  const at::Tensor x = input.scalar_type() == dtype ? input : input.to(dtype);
  return at::layer_norm(x, {input.size(-1)}, weight, bias, eps);
}

// The key of a parameter in torch::optim::Optimizer::state(): the TensorImpl address as a string
// in 1.x, the address itself from 2.2 on.
#if OLV2_TORCH_AT_LEAST(2, 2)
inline void* optimizer_state_key(const at::Tensor& param) { return param.unsafeGetTensorImpl(); }
#else
inline std::string optimizer_state_key(const at::Tensor& param) {
  return c10::guts::to_string(param.unsafeGetTensorImpl());
}
#endif

}  // namespace olv2::compat
