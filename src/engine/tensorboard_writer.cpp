#include "olv2/engine/tensorboard_writer.h"

#include <unistd.h>

#include <chrono>
#include <cstring>

#include "olv2/engine/tfrecord.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

void put_varint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void put_tag(std::string& out, uint32_t field, WireType type) {
  put_varint(out, (static_cast<uint64_t>(field) << 3) | type);
}

void put_bytes(std::string& out, uint32_t field, const std::string& bytes) {
  put_tag(out, field, kLengthDelimited);
  put_varint(out, bytes.size());
  out += bytes;
}

template <typename T>
void put_fixed(std::string& out, uint32_t field, T value) {
  put_tag(out, field, sizeof(T) == 8 ? kFixed64 : kFixed32);
  char raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));  // x86-64 and aarch64 are little-endian, as protobuf
  out.append(raw, sizeof(T));
}

// Reads protobuf fields one at a time from a byte range.
class FieldReader {
 public:
  explicit FieldReader(std::string_view bytes) : bytes_(bytes) {}
  bool next(uint32_t& field, uint32_t& type) {
    if (offset_ >= bytes_.size()) return false;
    const uint64_t key = varint();
    field = static_cast<uint32_t>(key >> 3);
    type = static_cast<uint32_t>(key & 7);
    return true;
  }
  uint64_t varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const auto byte = static_cast<unsigned char>(take(1)[0]);
      value |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    throw runtime_error("event protobuf: varint longer than 10 bytes");
  }
  std::string_view take(size_t size) {
    if (bytes_.size() - offset_ < size) throw runtime_error("event protobuf: truncated field");
    const std::string_view out = bytes_.substr(offset_, size);
    offset_ += size;
    return out;
  }
  template <typename T>
  T fixed() {
    T value;
    std::memcpy(&value, take(sizeof(T)).data(), sizeof(T));
    return value;
  }
  std::string_view delimited() { return take(varint()); }
  void skip(uint32_t type) {
    if (type == kVarint) {
      varint();
    } else if (type == kFixed64) {
      take(8);
    } else if (type == kLengthDelimited) {
      delimited();
    } else if (type == kFixed32) {
      take(4);
    } else {
      throw runtime_error("event protobuf: unsupported wire type " + std::to_string(type));
    }
  }

 private:
  std::string_view bytes_;
  size_t offset_ = 0;
};

std::pair<std::string, float> decode_value(std::string_view bytes) {
  std::pair<std::string, float> value{"", 0.0f};
  FieldReader reader(bytes);
  uint32_t field = 0;
  uint32_t type = 0;
  while (reader.next(field, type)) {
    if (field == 1 && type == kLengthDelimited) {
      value.first = std::string(reader.delimited());
    } else if (field == 2 && type == kFixed32) {
      value.second = reader.fixed<float>();
    } else {
      reader.skip(type);
    }
  }
  return value;
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string encode_event(const ScalarEvent& event) {
  std::string out;
  put_fixed<double>(out, 1, event.wall_time);
  put_tag(out, 2, kVarint);
  put_varint(out, static_cast<uint64_t>(event.step));
  if (!event.file_version.empty()) put_bytes(out, 3, event.file_version);
  if (!event.scalars.empty()) {
    std::string summary;
    for (const auto& [tag, value] : event.scalars) {
      std::string encoded;
      put_bytes(encoded, 1, tag);
      put_fixed<float>(encoded, 2, value);
      put_bytes(summary, 1, encoded);
    }
    put_bytes(out, 5, summary);
  }
  return out;
}

ScalarEvent decode_event(std::string_view bytes) {
  ScalarEvent event;
  FieldReader reader(bytes);
  uint32_t field = 0;
  uint32_t type = 0;
  while (reader.next(field, type)) {
    if (field == 1 && type == kFixed64) {
      event.wall_time = reader.fixed<double>();
    } else if (field == 2 && type == kVarint) {
      event.step = static_cast<int64_t>(reader.varint());
    } else if (field == 3 && type == kLengthDelimited) {
      event.file_version = std::string(reader.delimited());
    } else if (field == 5 && type == kLengthDelimited) {
      FieldReader summary(reader.delimited());
      uint32_t value_field = 0;
      uint32_t value_type = 0;
      while (summary.next(value_field, value_type)) {
        if (value_field == 1 && value_type == kLengthDelimited) {
          event.scalars.push_back(decode_value(summary.delimited()));
        } else {
          summary.skip(value_type);
        }
      }
    } else {
      reader.skip(type);
    }
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
  char host[256] = "localhost";
  gethostname(host, sizeof(host) - 1);
  const double start = now_seconds();
  file_ =
      log_dir / ("events.out.tfevents." + std::to_string(static_cast<int64_t>(start)) + "." + host);
  out_.open(file_, std::ios::binary | std::ios::app);
  if (!out_) throw runtime_error("TensorBoard log " + file_.string() + ": cannot be written");
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
