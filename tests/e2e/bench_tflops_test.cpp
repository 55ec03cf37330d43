#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/run_command.h"

namespace olv2 {
namespace {

// The last line of the output: the JSON record.
nlohmann::json json_line(const std::string& output) {
  const size_t end = output.find_last_not_of('\n');
  const size_t start = output.rfind('\n', end);
  return nlohmann::json::parse(output.substr(start == std::string::npos ? 0 : start + 1));
}

TEST(BenchTflops, CpuDefaultsMeasureFiniteGflopsPerDtype) {
  const test::CommandResult result = test::run_app("bench_tflops", "--device cpu --n 256 --runs 3");
  ASSERT_EQ(result.exit_status, 0) << result.output;
  EXPECT_NE(result.output.find("GFLOP/s"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("BLAS: "), std::string::npos) << result.output;
  const nlohmann::json record = json_line(result.output);
  EXPECT_EQ(record["device"], "cpu");
  EXPECT_EQ(record["n"], 256);
  std::set<std::string> dtypes;
  for (const nlohmann::json& entry : record["results"]) {
    const std::string dtype = entry["dtype"];
    dtypes.insert(dtype);
    ASSERT_TRUE(entry.contains("gflop_per_s")) << entry.dump();
    const double rate = entry["gflop_per_s"];
    const double seconds = entry["median_s"];
    EXPECT_TRUE(std::isfinite(rate) && rate > 0.0) << entry.dump();
    // The rate is 2 N^3 flop over the median time.
    EXPECT_NEAR(rate, 2.0 * 256 * 256 * 256 / seconds / 1e9, 1e-6 * rate) << entry.dump();
  }
  EXPECT_EQ(dtypes, (std::set<std::string>{"bf16", "fp32"}));
}

TEST(BenchTflops, ADtypeTheCpuCannotMultiplyIsListedAsUnsupportedAndTheRunSucceeds) {
  const test::CommandResult result =
      test::run_app("bench_tflops", "--device cpu --n 64 --runs 1 --dtypes fp16,fp32");
  ASSERT_EQ(result.exit_status, 0) << result.output;
  const nlohmann::json record = json_line(result.output);
  ASSERT_EQ(record["results"].size(), 2u);
  const nlohmann::json& fp16 = record["results"][0];
  EXPECT_EQ(fp16["dtype"], "fp16");
  // LibTorch 1.13 has no half-precision matmul on the CPU; later versions have one.
  if (fp16.contains("unsupported")) {
    EXPECT_NE(result.output.find("unsupported"), std::string::npos) << result.output;
    EXPECT_FALSE(fp16.contains("gflop_per_s"));
  } else {
    EXPECT_GT(fp16["gflop_per_s"].get<double>(), 0.0);
  }
  EXPECT_GT(record["results"][1]["gflop_per_s"].get<double>(), 0.0);
}

TEST(BenchTflops, AnUnknownDtypeIsABadInvocationNamingIt) {
  const test::CommandResult result =
      test::run_app("bench_tflops", "--device cpu --n 64 --dtypes fp32,int8");
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_NE(result.output.find("`int8`"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace olv2
