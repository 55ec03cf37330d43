#include "olv2/util/cuda_device.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/cuda.h>

#include <cstdint>
#include <cstdlib>

#ifdef OLV2_WITH_CUDA
#include <ATen/detail/CUDAHooksInterface.h>
#include <cuda_runtime_api.h>
#include <torch/csrc/cuda/nccl.h>
#endif

#include "olv2/util/error.h"
#include "olv2/util/platform.h"

namespace olv2 {

namespace {

// CUDA encodes versions as 1000 * major + 10 * minor.
std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

// "major.minor.patch"; cuDNN 9 and NCCL pack the three parts differently.
[[maybe_unused]] std::string dotted_version(uint64_t major, uint64_t minor, uint64_t patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

[[maybe_unused]] bool devices_hidden_on_purpose() {
  const std::optional<std::string> visible = platform::environment_variable("CUDA_VISIBLE_DEVICES");
  return visible && (visible->empty() || visible->front() == '-');
}

}  // namespace

CudaSetup cuda_setup() {
  CudaSetup setup;
#ifdef OLV2_WITH_CUDA
  setup.built_with_cuda = true;
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess)
    setup.cuda_runtime = cuda_version_text(runtime);
  int driver = 0;  // 0 when no driver is installed
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0)
    setup.driver = cuda_version_text(driver);
  const long cudnn = at::detail::getCUDAHooks().versionCuDNN();
  if (cudnn > 0) {  // 10000 * major + 100 * minor + patch
    setup.cudnn = dotted_version(cudnn / 10000, (cudnn % 10000) / 100, cudnn % 100);
  }
  const std::uint64_t nccl = torch::cuda::nccl::version();
  if (nccl > 0) {  // LibTorch's packing: major << 32 | minor << 16 | patch
    setup.nccl = dotted_version(nccl >> 32, (nccl >> 16) & 0xFFFF, nccl & 0xFFFF);
  }
#endif
  setup.visible_gpus = static_cast<int64_t>(torch::cuda::device_count());
  return setup;
}

std::string describe_cuda_build(const CudaSetup& setup) {
  if (!setup.built_with_cuda) return "CPU only";
  std::string text = "CUDA " + setup.cuda_runtime;
  if (!setup.cudnn.empty()) text += ", cuDNN " + setup.cudnn;
  if (!setup.nccl.empty()) text += ", NCCL " + setup.nccl;
  return text;
}

std::string cuda_driver_problem(int driver_version, int runtime_version) {
  if (driver_version <= 0 || driver_version / 1000 >= runtime_version / 1000) return "";
  return "the NVIDIA driver supports CUDA up to " + cuda_version_text(driver_version) +
         ", this LibTorch needs CUDA " + cuda_version_text(runtime_version) +
         ": update the driver, or run on the CPU with --device cpu (or CUDA_VISIBLE_DEVICES=-1)";
}

DeviceChoice device_choice_from_flag(const std::string& flag) {
  if (flag.empty()) return DeviceChoice::kAuto;
  if (flag == "cpu") return DeviceChoice::kCpu;
  if (flag == "cuda") return DeviceChoice::kCuda;
  throw input_error("--device " + flag + ": expected cpu or cuda");
}

c10::Device select_training_device(int64_t local_rank, DeviceChoice choice) {
  if (choice == DeviceChoice::kCpu) return c10::Device(c10::kCPU);
#ifdef OLV2_WITH_CUDA
  // Without this check LibTorch finds no device behind a too-old driver and the run would
  // quietly train on the CPU.
  int runtime = 0;
  int driver = 0;
  if (!devices_hidden_on_purpose() && cudaRuntimeGetVersion(&runtime) == cudaSuccess &&
      cudaDriverGetVersion(&driver) == cudaSuccess) {
    const std::string problem = cuda_driver_problem(driver, runtime);
    if (!problem.empty()) throw runtime_error(problem);
  }
#endif
  if (!torch::cuda::is_available()) {
    if (choice != DeviceChoice::kCuda) return c10::Device(c10::kCPU);
    throw input_error(std::string("--device cuda: ") +
                      (cuda_setup().built_with_cuda
                           ? "no GPU is visible (no NVIDIA driver, or CUDA_VISIBLE_DEVICES hides "
                             "them)"
                           : "this LibTorch is built for the CPU only"));
  }
  const auto visible = static_cast<int64_t>(torch::cuda::device_count());
  if (local_rank >= visible) {
    throw input_error("local rank " + std::to_string(local_rank) + " needs GPU " +
                      std::to_string(local_rank) + ", but this process sees " +
                      std::to_string(visible) +
                      " (CUDA_VISIBLE_DEVICES); start at most one rank per GPU on a node");
  }
  const c10::Device device(c10::kCUDA, static_cast<c10::DeviceIndex>(local_rank));
  make_current(device);
  return device;
}

void make_current(const c10::Device& device) {
  if (!device.is_cuda()) return;
  c10::impl::getDeviceGuardImpl(c10::kCUDA)->setDevice(device);
}

}  // namespace olv2
