#include "olv2/util/environment.h"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <torch/version.h>

#include <sstream>

#include "olv2/util/cuda_device.h"
#include "olv2/util/determinism.h"
#include "olv2/util/peak_memory.h"
#include "olv2/util/platform.h"

namespace olv2 {

namespace {

constexpr const char* kProjectVersion = "0.1.0";

}  // namespace

std::string loaded_blas_library() {
  const std::string config = at::show_config();
  const size_t key = config.find("BLAS_INFO=");
  const std::string blas_info =
      key == std::string::npos ? ""
                               : config.substr(key + 10, config.find(',', key + 10) - key - 10);
  // PyTorch's own builds link MKL statically: their matrix products never reach the system
  // BLAS, which other libraries (OpenCV's LAPACK) may still map into the process.
  if (blas_info == "mkl") return "MKL, built into LibTorch (BLAS_INFO=mkl)";
  const std::string mapped = platform::loaded_library_containing("blas");
  if (!mapped.empty()) return mapped;
  return blas_info.empty() ? "none mapped" : "none mapped (BLAS_INFO=" + blas_info + ")";
}

std::string version_string(const std::string& program) {
  return program + " " + kProjectVersion + " (git " + OLV2_GIT_REVISION + "), LibTorch " +
         TORCH_VERSION + " (" + describe_cuda_build(cuda_setup()) + ")";
}

std::string version_report(const std::string& program) {
  return version_string(program) + "\nBLAS: " + loaded_blas_library();
}

std::string environment_report(const std::string& program, const std::string& config_path,
                               const c10::Device& device,
                               const std::vector<std::pair<std::string, std::string>>& extra) {
  std::ostringstream out;
  const CudaSetup cuda = cuda_setup();
  out << "Environment info:\n"
      << "------------------------------------------------------------\n"
      << "platform: " << platform::system_description() << "\n"
      << "version: " << version_string(program) << "\n"
      << "LibTorch built with: " << describe_cuda_build(cuda) << "\n"
      << "NVIDIA driver: "
      << (cuda.driver.empty() ? std::string("none") : "supports CUDA " + cuda.driver) << "\n"
      << "CUDA available: " << (cuda.visible_gpus > 0 ? "True" : "False") << "\n";
  if (cuda.visible_gpus > 0) out << "GPU count: " << cuda.visible_gpus << "\n";
  out << "intra-op threads: " << at::get_num_threads() << "\n"
      << "inter-op threads: " << at::get_num_interop_threads() << "\n"
      << "BLAS: " << loaded_blas_library() << "\n"
      << "compiler: " << OLV2_COMPILER << "\n"
      << "git revision: " << OLV2_GIT_REVISION << "\n"
      << "deterministic: " << deterministic_algorithms_description() << "\n"
      << "device: " << device.str() << "\n"
      << "memory: " << peak_memory_description(device) << "\n";
  for (const auto& [key, value] : extra) out << key << ": " << value << "\n";
  out << "config: " << config_path << "\n"
      << "------------------------------------------------------------";
  return out.str();
}

}  // namespace olv2
