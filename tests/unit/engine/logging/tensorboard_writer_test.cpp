// TensorBoard event files: TFRecord framing with masked CRC-32C, Event protobufs with
// TensorFlow's field numbers, read back with the same code.
#include "olv2/engine/logging/tensorboard_writer.h"

#include <gtest/gtest.h>

#include <fstream>

#include "olv2/engine/logging/tfrecord.h"
#include "olv2/util/error.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

TEST(Crc32c, MatchesTheCastagnoliCheckValue) {
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);  // the standard CRC-32C check value
  EXPECT_EQ(crc32c(""), 0u);
}

TEST(EventProto, EncodesTensorFlowFieldNumbers) {
  ScalarEvent event;
  event.wall_time = 1.0;
  event.step = 3;
  event.scalars.emplace_back("a", 2.0f);
  const std::string bytes = encode_event(event);
  // wall_time: field 1, fixed64 (0x09); step: field 2, varint (0x10); summary: field 5 (0x2a)
  // holding value (field 1, 0x0a) = {tag: field 1 (0x0a), simple_value: field 2 fixed32 (0x15)}.
  const std::string expected = std::string("\x09\x00\x00\x00\x00\x00\x00\xf0\x3f", 9) +
                               std::string("\x10\x03", 2) + std::string("\x2a\x0a\x0a\x08", 4) +
                               std::string(
                                   "\x0a\x01"
                                   "a",
                                   3) +
                               std::string("\x15\x00\x00\x00\x40", 5);
  EXPECT_EQ(bytes, expected);
  const ScalarEvent decoded = decode_event(bytes);
  EXPECT_EQ(decoded.wall_time, 1.0);
  EXPECT_EQ(decoded.step, 3);
  ASSERT_EQ(decoded.scalars.size(), 1u);
  EXPECT_EQ(decoded.scalars[0].first, "a");
  EXPECT_EQ(decoded.scalars[0].second, 2.0f);
}

TEST(EventProto, MalformedBytesAreAnError) {
  EXPECT_THROW(decode_event(std::string("\x2a\x7f\x0a", 3)), Error);  // summary cut short
}

TEST(TensorboardWriter, ScalarsReadBackWithVersionFirst) {
  const std::filesystem::path dir = test::scratch_dir("tensorboard_writer") / "tf_logs";
  std::filesystem::path file;
  {
    TensorboardWriter writer(dir);
    writer.add_scalar("train/loss", 1.25, 10, 100.5);
    writer.add_scalar("learning_rate", 1e-4, 10, 100.5);
    writer.add_scalar("val/OLS", 0.375, 2, 200.0);
    file = writer.file();
  }
  EXPECT_EQ(file.parent_path(), dir);
  EXPECT_EQ(file.filename().string().rfind("events.out.tfevents.", 0), 0u);
  const std::vector<ScalarEvent> events = read_event_file(file);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].file_version, "brain.Event:2");
  EXPECT_TRUE(events[0].scalars.empty());
  EXPECT_EQ(events[1].step, 10);
  EXPECT_EQ(events[1].wall_time, 100.5);
  ASSERT_EQ(events[1].scalars.size(), 1u);
  EXPECT_EQ(events[1].scalars[0].first, "train/loss");
  EXPECT_EQ(events[1].scalars[0].second, 1.25f);
  EXPECT_EQ(events[2].scalars[0].second, static_cast<float>(1e-4));
  EXPECT_EQ(events[3].scalars[0].first, "val/OLS");
  EXPECT_EQ(events[3].step, 2);
}

TEST(TfRecord, CorruptedDataFailsTheCrcCheck) {
  const std::filesystem::path file = test::scratch_dir("tfrecord_corrupt") / "records";
  {
    std::ofstream out(file, std::ios::binary);
    write_tfrecord(out, "first");
    write_tfrecord(out, "second");
  }
  EXPECT_EQ(read_tfrecords(file), (std::vector<std::string>{"first", "second"}));
  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  bytes[12 + 5 + 4 + 12 + 1] ^= 0x01;  // one bit of the second record's data
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  try {
    read_tfrecords(file);
    FAIL() << "corruption not detected";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("data CRC mismatch"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("byte 21"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace olv2
