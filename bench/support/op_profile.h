#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace olv2 {

// One operator's share of a profiled scope: its self time (its own time less that of the
// operators it called) summed over its calls, in seconds.
struct OpTime {
  std::string name;
  double self_s = 0.0;
  int64_t calls = 0;
};

// Records every operator the calling thread runs, forward and backward, from construction to
// stop() (LibTorch's autograd profiler, CPU timing), to find where a step's time goes.
class OpProfile {
 public:
  OpProfile();
  ~OpProfile();
  OpProfile(const OpProfile&) = delete;
  OpProfile& operator=(const OpProfile&) = delete;

  // Ends the recording; the operators by decreasing self time.
  std::vector<OpTime> stop();

 private:
  bool running_ = true;
};

}  // namespace olv2
