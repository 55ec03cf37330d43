#pragma once
// TensorBoard event files of scalars: the Event messages, writing them and reading them back.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace olv2 {

// One TensorBoard `Event` as scalar logs use it: a version event or a summary of scalars. On
// disk it is the protobuf message of third_party/tensorboard/event.proto (TensorFlow's field
// numbers).
struct ScalarEvent {
  double wall_time = 0.0;
  int64_t step = 0;
  std::string file_version;                            // set only in the first event
  std::vector<std::pair<std::string, float>> scalars;  // tag, simple_value
};

std::string encode_event(const ScalarEvent& event);
// Throws a runtime error on malformed bytes; unknown fields are skipped.
ScalarEvent decode_event(std::string_view bytes);

// Every event of a TensorBoard event file (CRCs checked).
std::vector<ScalarEvent> read_event_file(const std::filesystem::path& file);

// Writes scalar summaries to `<log_dir>/events.out.tfevents.<seconds>.<host>` as TensorBoard
// reads them: TFRecord-framed Event protobufs, starting with the "brain.Event:2" version
// event. Each add_scalar is flushed, so the file is readable while training runs.
class TensorboardWriter {
 public:
  explicit TensorboardWriter(const std::filesystem::path& log_dir);
  // `wall_time` defaults to now (seconds since the epoch).
  void add_scalar(const std::string& tag, double value, int64_t step,
                  std::optional<double> wall_time = std::nullopt);
  const std::filesystem::path& file() const { return file_; }

 private:
  void write(const ScalarEvent& event);

  std::filesystem::path file_;
  std::ofstream out_;
};

}  // namespace olv2
