#include "olv2/engine/logging/tensorboard_writer.h"

#include <cerrno>
#include <chrono>

#include "olv2/engine/logging/tfrecord.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"
#include "olv2/util/platform.h"
#include "tensorboard/event.pb.h"

namespace olv2 {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string encode_event(const ScalarEvent& event) {
  tensorboard::Event message;
  message.set_wall_time(event.wall_time);
  message.set_step(event.step);
  if (!event.file_version.empty()) {
    message.set_file_version(event.file_version);
  } else if (!event.scalars.empty()) {
    tensorboard::Summary* summary = message.mutable_summary();
    for (const auto& [tag, value] : event.scalars) {
      tensorboard::Summary::Value* entry = summary->add_value();
      entry->set_tag(tag);
      entry->set_simple_value(value);
    }
  }
  return message.SerializeAsString();
}

ScalarEvent decode_event(std::string_view bytes) {
  tensorboard::Event message;
  if (!message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw runtime_error("event protobuf: malformed Event message");
  }
  ScalarEvent event;
  event.wall_time = message.wall_time();
  event.step = message.step();
  event.file_version = message.file_version();
  for (const tensorboard::Summary::Value& value : message.summary().value()) {
    event.scalars.emplace_back(value.tag(), value.simple_value());
  }
  return event;
}

std::vector<ScalarEvent> read_event_file(const std::filesystem::path& file) {
  std::vector<ScalarEvent> events;
  for (const std::string& record : read_tfrecords(file)) events.push_back(decode_event(record));
  return events;
}

TensorboardWriter::TensorboardWriter(const std::filesystem::path& log_dir) {
  std::error_code error;
  std::filesystem::create_directories(log_dir, error);
  const std::string host = platform::host_name();
  const double start = now_seconds();
  file_ =
      log_dir / ("events.out.tfevents." + std::to_string(static_cast<int64_t>(start)) + "." + host);
  errno = 0;
  out_.open(file_, std::ios::binary | std::ios::app);
  if (!out_) {
    throw runtime_error("TensorBoard log " + file_.string() + ": cannot open for writing: " +
                        system_reason());
  }
  ScalarEvent version;
  version.wall_time = start;
  version.file_version = "brain.Event:2";
  write(version);
}

void TensorboardWriter::add_scalar(const std::string& tag, double value, int64_t step,
                                   std::optional<double> wall_time) {
  ScalarEvent event;
  event.wall_time = wall_time.value_or(now_seconds());
  event.step = step;
  event.scalars.emplace_back(tag, static_cast<float>(value));
  write(event);
}

void TensorboardWriter::write(const ScalarEvent& event) {
  write_tfrecord(out_, encode_event(event));
  out_.flush();
  if (!out_) throw runtime_error("TensorBoard log " + file_.string() + ": write failed");
}

}  // namespace olv2
