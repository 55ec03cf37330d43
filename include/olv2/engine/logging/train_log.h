#pragma once
// What a training run logs: the original trainer's progress line and mmcv's train and val records.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "olv2/engine/logging/log_buffer.h"
#include "olv2/evaluation/evaluator.h"

namespace olv2 {

// One progress line of the original trainer (tools/train_ds.py), plus our appended values.
struct TrainLine {
  int64_t epoch = 0;          // 0-based, as the original prints it
  int64_t idx = 0;            // the step's last micro-batch within the epoch, 0-based
  int64_t micro_batches = 0;  // micro-batches in the epoch
  int64_t iter = 0;           // optimizer step within the epoch, 0-based
  int64_t iters = 0;          // the original's micro_batches // accumulation
  int64_t samples_per_gpu = 0;
  int64_t accumulation = 1;
  double eta_seconds = 0.0;
  double iter_time_seconds = 0.0;
  double loss = 0.0;
  std::vector<std::pair<std::string, double>> log_vars;  // loss terms, then "loss"
  // Appended after the original's text.
  double lr = 0.0;
  double grad_norm = 0.0;
  double data_time = 0.0;
  std::optional<int64_t> memory_mb;
  std::optional<double> loss_scale;
  std::optional<int64_t> skipped_steps;
};

// "Epoch 0, idx 349 / 11239, iter 174 / 5619, bs 2 *acc 2: 4, eta 2 days, 9:12:06,
// iter_time 0:00:37, loss 5.2290, log_vars : OrderedDict([('lc_loss_cls', 1.0), ...])"
// character for character as Python 3.8 printed it (timedelta of whole seconds, loss with 4
// decimals, the OrderedDict's repr), then ", lr 1.000e-04, grad_norm 12.3456,
// data_time 0.012" and, when set, ", memory 1234", ", loss_scale 65536.0", ", skipped 0".
std::string format_train_line(const TrainLine& line);

// repr() of a Python OrderedDict of str -> float, as Python 3.8 prints it.
std::string python_ordered_dict_repr(const std::vector<std::pair<std::string, double>>& items);

// One JSON-lines record of mmcv's TextLoggerHook: keys in insertion order, floats rounded to
// 5 decimals and printed as Python's json module does (NaN and Infinity included).
class LogRecord {
 public:
  using Value = std::variant<int64_t, double, std::string>;
  LogRecord& add(const std::string& key, Value value);
  const std::vector<std::pair<std::string, Value>>& items() const { return items_; }
  std::string to_json() const;

 private:
  std::vector<std::pair<std::string, Value>> items_;
};

// The peak memory a train record reports, in MB: `memory` (peak_memory_mb) and, on a GPU,
// `memory_reserved` (peak_reserved_memory_mb), which mmcv's records do not have.
struct RecordedMemory {
  std::optional<int64_t> mb;
  std::optional<int64_t> reserved_mb;
};

// mmcv's train record: mode "train", epoch (1-based), iter (1-based within the epoch), lr of
// the first param group, memory (MB, when known) and memory_reserved (when known), then the
// averaged buffer values in their order (data_time, loss terms, loss, grad_norm, time, ...),
// then loss_scale and skipped_steps when mixed precision runs with a scaler.
LogRecord train_record(int64_t epoch, int64_t iter, double lr, const RecordedMemory& memory,
                       const LogBuffer& buffer, std::optional<double> loss_scale,
                       std::optional<int64_t> skipped_steps);

// mmcv's val record: mode "val", epoch (1-based), iter, lr, then the metrics in order.
LogRecord val_record(int64_t epoch, int64_t iter, double lr,
                     const std::vector<std::pair<std::string, double>>& metrics);

}  // namespace olv2
