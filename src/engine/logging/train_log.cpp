#include "olv2/engine/logging/train_log.h"

#include <cmath>

#include "olv2/engine/logging/python_format.h"

namespace olv2 {
namespace {

std::string python_str_repr(const std::string& text) {
  const bool has_single = text.find('\'') != std::string::npos;
  const bool has_double = text.find('"') != std::string::npos;
  const char quote = (has_single && !has_double) ? '"' : '\'';
  std::string out(1, quote);
  for (const char c : text) {
    if (c == quote || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + quote;
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
      out += buffer;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string json_number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return python_float_repr(python_round(value, 5));
}

}  // namespace

std::string python_ordered_dict_repr(const std::vector<std::pair<std::string, double>>& items) {
  if (items.empty()) return "OrderedDict()";
  std::string out = "OrderedDict([";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += "(" + python_str_repr(items[i].first) + ", " + python_float_repr(items[i].second) + ")";
  }
  return out + "])";
}

std::string format_train_line(const TrainLine& line) {
  std::string out = "Epoch " + std::to_string(line.epoch) + ", idx " + std::to_string(line.idx) +
                    " / " + std::to_string(line.micro_batches) + ", iter " +
                    std::to_string(line.iter) + " / " + std::to_string(line.iters) + ", bs " +
                    std::to_string(line.samples_per_gpu) + " *acc " +
                    std::to_string(line.accumulation) + ": " +
                    std::to_string(line.samples_per_gpu * line.accumulation);
  // Python's int() truncates toward zero before timedelta formats the seconds.
  out += ", eta " + python_timedelta(static_cast<int64_t>(std::max(0.0, line.eta_seconds)));
  out += ", iter_time " +
         python_timedelta(static_cast<int64_t>(std::max(0.0, line.iter_time_seconds)));
  out += ", loss " + python_fixed(line.loss, 4);
  out += ", log_vars : " + python_ordered_dict_repr(line.log_vars);
  out += ", lr " + python_scientific(line.lr, 3) + ", grad_norm " +
         python_fixed(line.grad_norm, 4) + ", data_time " + python_fixed(line.data_time, 3);
  if (line.memory_mb) out += ", memory " + std::to_string(*line.memory_mb);
  if (line.loss_scale) out += ", loss_scale " + python_float_repr(*line.loss_scale);
  if (line.skipped_steps) out += ", skipped " + std::to_string(*line.skipped_steps);
  return out;
}

LogRecord& LogRecord::add(const std::string& key, Value value) {
  for (auto& item : items_) {
    if (item.first == key) {
      item.second = std::move(value);
      return *this;
    }
  }
  items_.emplace_back(key, std::move(value));
  return *this;
}

std::string LogRecord::to_json() const {
  std::string out = "{";
  for (size_t i = 0; i < items_.size(); ++i) {
    if (i > 0) out += ", ";
    out += json_string(items_[i].first) + ": ";
    const Value& value = items_[i].second;
    if (const auto* integer = std::get_if<int64_t>(&value)) {
      out += std::to_string(*integer);
    } else if (const auto* number = std::get_if<double>(&value)) {
      out += json_number(*number);
    } else {
      out += json_string(std::get<std::string>(value));
    }
  }
  return out + "}";
}

LogRecord train_record(int64_t epoch, int64_t iter, double lr, const RecordedMemory& memory,
                       const LogBuffer& buffer, std::optional<double> loss_scale,
                       std::optional<int64_t> skipped_steps) {
  LogRecord record;
  record.add("mode", std::string("train")).add("epoch", epoch).add("iter", iter).add("lr", lr);
  if (memory.mb) record.add("memory", *memory.mb);
  if (memory.reserved_mb) record.add("memory_reserved", *memory.reserved_mb);
  for (const auto& [key, value] : buffer.output()) record.add(key, value);
  if (loss_scale) record.add("loss_scale", *loss_scale);
  if (skipped_steps) record.add("skipped_steps", *skipped_steps);
  return record;
}

LogRecord val_record(int64_t epoch, int64_t iter, double lr,
                     const std::vector<std::pair<std::string, double>>& metrics) {
  LogRecord record;
  record.add("mode", std::string("val")).add("epoch", epoch).add("iter", iter).add("lr", lr);
  for (const auto& [key, value] : metrics) record.add(key, value);
  return record;
}

}  // namespace olv2
