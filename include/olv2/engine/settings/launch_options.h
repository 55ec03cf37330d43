#pragma once
// The command-line flags of a program that runs as one rank of a launch (train_ds, test_ds).
#include <cstdint>
#include <optional>
#include <string>

namespace olv2 {

struct LaunchOptions {
  std::string launcher = "none";      // none | pytorch | slurm
  int local_rank = 0;                 // --local-rank (the DeepSpeed launcher's); LOCAL_RANK wins
  std::optional<int> threads;         // unset: config `threads`, else the default for this machine
  std::string device;                 // "cpu" or "cuda"; empty: the rank's GPU if any, else the CPU
  std::optional<int64_t> max_frames;  // --max-frames: set as `data.max_frames`
  std::optional<double> cuda_memory_cap_gib;  // --cuda-memory-cap: util/cuda_memory_cap.h
};

}  // namespace olv2
