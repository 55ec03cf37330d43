// Log text as Python prints it, the original trainer's line, mmcv's JSON records and log
// buffer. Expected strings are what CPython 3 prints for the same values.
#include "olv2/engine/logging/train_log.h"

#include <gtest/gtest.h>

#include <cmath>

#include "olv2/engine/logging/log_buffer.h"
#include "olv2/engine/logging/python_format.h"

namespace olv2 {
namespace {

TEST(PythonFormat, FloatReprIsShortestAndSwitchesNotationLikePython) {
  EXPECT_EQ(python_float_repr(0.1), "0.1");
  EXPECT_EQ(python_float_repr(5.229), "5.229");
  EXPECT_EQ(python_float_repr(1.0), "1.0");
  EXPECT_EQ(python_float_repr(65536.0), "65536.0");
  EXPECT_EQ(python_float_repr(0.0001), "0.0001");
  EXPECT_EQ(python_float_repr(1e-05), "1e-05");
  EXPECT_EQ(python_float_repr(3.3333333333333335e-05), "3.3333333333333335e-05");
  EXPECT_EQ(python_float_repr(1e16), "1e+16");
  EXPECT_EQ(python_float_repr(1234567890123456.0), "1234567890123456.0");
  EXPECT_EQ(python_float_repr(-0.0), "-0.0");
  EXPECT_EQ(python_float_repr(static_cast<double>(0.3f)), "0.30000001192092896");
  EXPECT_EQ(python_float_repr(std::nan("")), "nan");
}

TEST(PythonFormat, TimedeltaOfWholeSeconds) {
  EXPECT_EQ(python_timedelta(0), "0:00:00");
  EXPECT_EQ(python_timedelta(37), "0:00:37");
  EXPECT_EQ(python_timedelta(9 * 3600 + 12 * 60 + 6), "9:12:06");
  EXPECT_EQ(python_timedelta(86400), "1 day, 0:00:00");
  EXPECT_EQ(python_timedelta(2 * 86400 + 9 * 3600 + 12 * 60 + 6), "2 days, 9:12:06");
}

TEST(PythonFormat, RoundHalfEvenOnTheExactBinaryValue) {
  EXPECT_EQ(python_round(0.123456, 5), 0.12346);
  EXPECT_EQ(python_round(2.675, 2), 2.67);  // 2.675 is 2.67499999... in binary
  EXPECT_EQ(python_round(0.125, 2), 0.12);  // exact tie: to even
}

TEST(TrainLine, MatchesTheOriginalTrainersText) {
  TrainLine line;
  line.epoch = 0;
  line.idx = 349;
  line.micro_batches = 11239;
  line.iter = 174;
  line.iters = 11239 / 2;
  line.samples_per_gpu = 2;
  line.accumulation = 2;
  line.eta_seconds = 2 * 86400 + 9 * 3600 + 12 * 60 + 6.9;
  line.iter_time_seconds = 37.99;
  line.loss = 5.22899;
  line.log_vars = {{"lc_loss_cls", 0.5}, {"loss", 5.25}};
  line.lr = 1e-4;
  line.grad_norm = 12.345678;
  line.data_time = 0.0123;
  EXPECT_EQ(format_train_line(line),
            "Epoch 0, idx 349 / 11239, iter 174 / 5619, bs 2 *acc 2: 4, eta 2 days, 9:12:06, "
            "iter_time 0:00:37, loss 5.2290, log_vars : OrderedDict([('lc_loss_cls', 0.5), "
            "('loss', 5.25)]), lr 1.000e-04, grad_norm 12.3457, data_time 0.012");
  line.memory_mb = 1234;
  line.loss_scale = 65536.0;
  line.skipped_steps = 1;
  EXPECT_NE(format_train_line(line).find(", memory 1234, loss_scale 65536.0, skipped 1"),
            std::string::npos);
}

TEST(LogBuffer, AveragesTheLatestNValuesWeightedByCount) {
  LogBuffer buffer;
  buffer.update("data_time", 1.0);
  buffer.update("loss", 4.0, 2);
  buffer.update("data_time", 3.0);
  buffer.update("loss", 1.0, 1);
  buffer.update("data_time", 5.0);
  buffer.average(2);
  ASSERT_TRUE(buffer.ready());
  ASSERT_EQ(buffer.output().size(), 2u);
  EXPECT_EQ(buffer.output()[0].first, "data_time");
  EXPECT_EQ(buffer.output("data_time"), 4.0);
  EXPECT_EQ(buffer.output("loss"), 3.0);  // (4*2 + 1*1) / 3
  buffer.clear();
  EXPECT_FALSE(buffer.ready());
  EXPECT_TRUE(buffer.output().empty());
}

TEST(LogRecord, WritesMmcvTrainRecordsWithRoundedFloats) {
  LogBuffer buffer;
  buffer.update("data_time", 0.0123456);
  buffer.update("lc_loss_cls", 1.5);
  buffer.update("loss", 2.0);
  buffer.update("grad_norm", 10.0);
  buffer.update("time", 0.5);
  buffer.average(1);
  EXPECT_EQ(train_record(1, 50, 3e-05, {812, std::nullopt}, buffer, 65536.0, 0).to_json(),
            "{\"mode\": \"train\", \"epoch\": 1, \"iter\": 50, \"lr\": 3e-05, \"memory\": 812, "
            "\"data_time\": 0.01235, \"lc_loss_cls\": 1.5, \"loss\": 2.0, \"grad_norm\": 10.0, "
            "\"time\": 0.5, \"loss_scale\": 65536.0, \"skipped_steps\": 0}");
  // On a GPU the allocator's reserved peak follows the allocated one.
  EXPECT_EQ(train_record(1, 50, 3e-05, {812, 1024}, buffer, std::nullopt, std::nullopt).to_json(),
            "{\"mode\": \"train\", \"epoch\": 1, \"iter\": 50, \"lr\": 3e-05, \"memory\": 812, "
            "\"memory_reserved\": 1024, \"data_time\": 0.01235, \"lc_loss_cls\": 1.5, "
            "\"loss\": 2.0, \"grad_norm\": 10.0, \"time\": 0.5}");
  EXPECT_EQ(val_record(2, 37, 1e-4, {{"OLS", 0.25}, {"DET_l", std::nan("")}}).to_json(),
            "{\"mode\": \"val\", \"epoch\": 2, \"iter\": 37, \"lr\": 0.0001, \"OLS\": 0.25, "
            "\"DET_l\": NaN}");
}

}  // namespace
}  // namespace olv2
