#pragma once
// CUDA as LibTorch was built with it and as the machine offers it, and the GPU each rank trains on.
#include <c10/core/Device.h>

#include <cstdint>
#include <string>

namespace olv2 {

// What this LibTorch was built with and what the machine's driver offers. Versions are
// "major.minor[.patch]" strings, empty when absent (a CPU build has no CUDA, cuDNN or NCCL;
// a machine without an NVIDIA driver has no driver version).
struct CudaSetup {
  bool built_with_cuda = false;
  std::string cuda_runtime;  // the CUDA runtime LibTorch was built against
  std::string cudnn;
  std::string nccl;
  std::string driver;        // the highest CUDA version the installed driver supports
  int64_t visible_gpus = 0;  // 0 without a driver, or with CUDA_VISIBLE_DEVICES=-1
};

CudaSetup cuda_setup();

// "CUDA 13.0, cuDNN 9.19.0, NCCL 2.28.9" or "CPU only", for --version and the environment block.
std::string describe_cuda_build(const CudaSetup& setup);

// Why an NVIDIA driver cannot run this LibTorch's CUDA: empty when it can or when there is no
// driver (`driver_version` 0). Versions as CUDA encodes them (1000 * major + 10 * minor); a
// driver runs any runtime of its own major version or older.
std::string cuda_driver_problem(int driver_version, int runtime_version);

// Where a process runs its model: its GPU when one is visible (kAuto), or as `--device` says.
enum class DeviceChoice { kAuto, kCpu, kCuda };

// `--device`'s value: "" (kAuto), "cpu" or "cuda"; anything else is an input error.
DeviceChoice device_choice_from_flag(const std::string& flag);

// The device a process of local rank `local_rank` trains on: the local_rank-th visible GPU,
// made the current CUDA device of the calling thread (so the rank's context, streams, cuBLAS
// handles and NCCL communicator live on its own GPU), or the CPU when no GPU is visible or
// `choice` is kCpu. A driver too old for this LibTorch's CUDA, fewer visible GPUs than local
// ranks, or kCuda without a visible GPU is an error: the run would otherwise fall back to the
// CPU or share a GPU without saying so. CUDA_VISIBLE_DEVICES=-1 chooses the CPU too.
c10::Device select_training_device(int64_t local_rank, DeviceChoice choice = DeviceChoice::kAuto);

// Makes `device` the calling thread's current CUDA device (loader threads that pin host memory
// for it); nothing for the CPU.
void make_current(const c10::Device& device);

}  // namespace olv2
