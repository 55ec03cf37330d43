#include "olv2/util/environment.h"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <sstream>

#include "olv2/util/determinism.h"
#include "olv2/util/peak_memory.h"
#include "olv2/util/platform.h"

namespace olv2 {

namespace {

constexpr const char* kProjectVersion = "0.1.0";

}  // namespace

std::string loaded_blas_library() {
  const std::string mapped = platform::loaded_library_containing("blas");
  if (!mapped.empty()) return mapped;
  // None mapped: the BLAS is linked into LibTorch itself (MKL in PyTorch's own builds).
  const std::string config = at::show_config();
  const size_t key = config.find("BLAS_INFO=");
  if (key == std::string::npos) return "none mapped";
  const size_t start = key + 10;
  return "built into LibTorch (BLAS_INFO=" + config.substr(start, config.find(',', start) - start) +
         ")";
}

std::string version_string() {
  return std::string("train_ds ") + kProjectVersion + " (git " + OLV2_GIT_REVISION +
         "), LibTorch " + TORCH_VERSION;
}

std::string environment_report(const std::string& config_path, const c10::Device& device,
                               const std::vector<std::pair<std::string, std::string>>& extra) {
  std::ostringstream out;
  const bool cuda = torch::cuda::is_available();
  out << "Environment info:\n"
      << "------------------------------------------------------------\n"
      << "platform: " << platform::system_description() << "\n"
      << "train_ds: " << version_string() << "\n"
      << "CUDA available: " << (cuda ? "True" : "False") << "\n";
  if (cuda) out << "GPU count: " << torch::cuda::device_count() << "\n";
  out << "intra-op threads: " << at::get_num_threads() << "\n"
      << "inter-op threads: " << at::get_num_interop_threads() << "\n"
      << "BLAS: " << loaded_blas_library() << "\n"
      << "compiler: " << OLV2_COMPILER << "\n"
      << "git revision: " << OLV2_GIT_REVISION << "\n"
      << "deterministic: " << (deterministic_algorithms() ? "true" : "false") << "\n"
      << "device: " << device.str() << "\n"
      << "memory: " << peak_memory_description(device) << "\n";
  for (const auto& [key, value] : extra) out << key << ": " << value << "\n";
  out << "config: " << config_path << "\n"
      << "------------------------------------------------------------";
  return out.str();
}

}  // namespace olv2
