#include "olv2/engine/logging/log_buffer.h"

#include <algorithm>
#include <limits>

namespace olv2 {

void LogBuffer::update(const std::string& key, double value, int64_t count) {
  auto found = std::find_if(history_.begin(), history_.end(),
                            [&](const History& history) { return history.key == key; });
  if (found == history_.end()) {
    history_.push_back({key, {}, {}});
    found = std::prev(history_.end());
  }
  found->values.push_back(value);
  found->counts.push_back(count);
}

void LogBuffer::average(size_t n) {
  output_.clear();
  for (const History& history : history_) {
    const size_t size = history.values.size();
    const size_t first = (n == 0 || n >= size) ? 0 : size - n;
    // sum(values * counts) / sum(counts) in double, as mmcv (numpy may sum in another order).
    double weighted = 0.0;
    double total = 0.0;
    for (size_t i = first; i < size; ++i) {
      weighted += history.values[i] * static_cast<double>(history.counts[i]);
      total += static_cast<double>(history.counts[i]);
    }
    output_.emplace_back(history.key, weighted / total);
  }
  ready_ = true;
}

void LogBuffer::clear() {
  history_.clear();
  clear_output();
}

void LogBuffer::clear_output() {
  output_.clear();
  ready_ = false;
}

double LogBuffer::output(const std::string& key) const {
  for (const auto& [name, value] : output_) {
    if (name == key) return value;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace olv2
