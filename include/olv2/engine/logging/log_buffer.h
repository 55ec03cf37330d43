#pragma once
// mmcv's LogBuffer: the values logged per step and their averages over a log interval.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace olv2 {

// mmcv's LogBuffer: every update appends (value, count) per key; average(n) sets each key's
// output to the count-weighted mean of its latest n values (all when n is 0). Keys keep the
// order of their first update, which becomes the order of the log record.
class LogBuffer {
 public:
  void update(const std::string& key, double value, int64_t count = 1);
  void average(size_t n = 0);
  // Clears the history and the output (mmcv does it at every epoch start).
  void clear();
  void clear_output();
  bool ready() const { return ready_; }
  // Averaged values in first-update order.
  const std::vector<std::pair<std::string, double>>& output() const { return output_; }
  // The averaged value of `key`; nan when absent.
  double output(const std::string& key) const;

 private:
  struct History {
    std::string key;
    std::vector<double> values;
    std::vector<int64_t> counts;
  };
  std::vector<History> history_;
  std::vector<std::pair<std::string, double>> output_;
  bool ready_ = false;
};

}  // namespace olv2
