// The POSIX branch of the platform layer: durable replacement survives a kill at any moment,
// the memory and CPU figures are plausible, and the rest does what the header says.
#include "olv2/util/platform.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>
#include <vector>

#include "olv2/util/filesystem.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

std::string contents_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(Platform, AnAtomicWriteKilledAtAnyMomentLeavesTheOldFileOrTheNewOne) {
  const fs::path dir = test::scratch_dir("platform_kill");
  const fs::path file = dir / "state.bin";
  const std::string versions[] = {std::string(1 << 20, 'a'), std::string(1 << 20, 'b'),
                                  std::string(3 << 19, 'c')};
  write_file_atomic(file, versions[0]);
  for (int round = 0; round < 12; ++round) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      // The child must never return into the test runner: a failed write ends it at once.
      try {
        for (int i = 0;; ++i) write_file_atomic(file, versions[1 + i % 2]);
      } catch (const std::exception& error) {
        std::fprintf(stderr, "writer child: %s\n", error.what());
      }
      _exit(3);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(3 + 7 * round));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer child stopped by itself";
    const std::string now = contents_of(file);
    EXPECT_TRUE(now == versions[0] || now == versions[1] || now == versions[2])
        << "round " << round << ": " << now.size() << " bytes, first '"
        << (now.empty() ? ' ' : now[0]) << "'";
  }
}

TEST(Platform, MemoryFiguresArePlausibleAndFollowAnAllocation) {
  const int64_t before = platform::current_resident_bytes();
  EXPECT_GT(before, 0);
  std::vector<char> block(256 << 20);
  for (size_t i = 0; i < block.size(); i += 4096) block[i] = 1;
  const int64_t during = platform::current_resident_bytes();
  EXPECT_GE(during - before, 200 << 20);
  // The kernel updates the peak (ru_maxrss) at its own pace: it may trail by some pages.
  EXPECT_GE(platform::peak_resident_bytes(), during - (16 << 20));
  EXPECT_GE(platform::peak_resident_bytes(), 200 << 20);
  EXPECT_GT(platform::physical_memory_bytes(), platform::peak_resident_bytes());
  EXPECT_EQ(block[4096], 1);
}

TEST(Platform, MovedPagesKeepTheirContentsAtTheirNewAddress) {
  const size_t page = platform::page_size();
  auto* from = static_cast<char*>(platform::map_pages(3 * page));
  auto* to = static_cast<char*>(platform::map_pages(3 * page));
  ASSERT_NE(from, nullptr);
  ASSERT_NE(to, nullptr);
  for (size_t i = 0; i < 3 * page; ++i) from[i] = static_cast<char>(i % 251);
  // The middle page and the last move onto the first two of `to`.
  const bool moved = platform::move_pages(from + page, 2 * page, to);
#if defined(__linux__)
  ASSERT_TRUE(moved);
  for (size_t i = 0; i < 2 * page; ++i) {
    ASSERT_EQ(to[i], static_cast<char>((i + page) % 251)) << "byte " << i;
  }
  EXPECT_EQ(from[1], 1);  // the page before stays where it was
  platform::unmap_pages(from, page);
#else
  EXPECT_FALSE(moved);
  EXPECT_EQ(to[0], 0);
  platform::unmap_pages(from, 3 * page);
#endif
  to[3 * page - 1] = 1;  // the page nothing moved onto is still there
  platform::unmap_pages(to, 3 * page);
}

TEST(Platform, DescriptorAndThreadCountsFollowWhatTheProcessOpens) {
  const int64_t descriptors = platform::open_descriptor_count();
  const int64_t threads = platform::thread_count();
  EXPECT_GE(descriptors, 3);  // stdin, stdout, stderr
  EXPECT_GE(threads, 1);
  {
    std::ifstream a("/proc/self/status"), b("/proc/self/status");
    EXPECT_EQ(platform::open_descriptor_count(), descriptors + 2);
  }
  EXPECT_EQ(platform::open_descriptor_count(), descriptors);
  std::atomic<bool> stop{false};
  std::thread worker([&] {
    while (!stop.load()) std::this_thread::yield();
  });
  EXPECT_EQ(platform::thread_count(), threads + 1);
  stop = true;
  worker.join();
}

TEST(Platform, ProcessAndMachineFacts) {
  EXPECT_EQ(platform::process_id(), static_cast<int64_t>(::getpid()));
  const int cpus = platform::usable_cpu_count();
  EXPECT_GE(cpus, 1);
  EXPECT_LE(cpus, static_cast<int>(std::thread::hardware_concurrency()));
  EXPECT_FALSE(platform::cpu_model_name().empty());
  EXPECT_FALSE(platform::host_name().empty());
  EXPECT_NE(platform::system_description().find("Linux"), std::string::npos);
  EXPECT_EQ(platform::executable_path().filename(), "unit_util_tests");
  EXPECT_NE(platform::loaded_library_containing("libc"), "");
  EXPECT_EQ(platform::loaded_library_containing("no-such-library-xyz"), "");
}

TEST(Platform, LocalTimeAndEnvironmentDefaults) {
  const std::time_t now = std::time(nullptr);
  std::tm expected{};
  localtime_r(&now, &expected);
  const std::tm local = platform::local_time(now);
  EXPECT_EQ(local.tm_hour, expected.tm_hour);
  EXPECT_EQ(local.tm_mday, expected.tm_mday);
  ::unsetenv("OLV2_PLATFORM_TEST");
  platform::set_environment_default("OLV2_PLATFORM_TEST", "first");
  platform::set_environment_default("OLV2_PLATFORM_TEST", "second");
  EXPECT_STREQ(std::getenv("OLV2_PLATFORM_TEST"), "first");
}

TEST(Platform, TheLatestPointerIsReplacedAndReadsAsItsTarget) {
  const fs::path dir = test::scratch_dir("platform_link");
  write_file_atomic(dir / "epoch_1.pth", "one");
  write_file_atomic(dir / "epoch_2.pth", "two");
  platform::point_link_at(dir / "latest.pth", "epoch_1.pth");
  EXPECT_EQ(contents_of(dir / "latest.pth"), "one");
  platform::point_link_at(dir / "latest.pth", "epoch_2.pth");
  EXPECT_EQ(contents_of(dir / "latest.pth"), "two");
  EXPECT_EQ(fs::read_symlink(dir / "latest.pth"), "epoch_2.pth");  // relative: the dir can move
  size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 3u) << "no temporary left behind";
}

TEST(Platform, ReplacingAndFlushingNameTheFiles) {
  const fs::path dir = test::scratch_dir("platform_errors");
  try {
    platform::flush_to_disk(dir / "missing.bin");
    FAIL() << "expected an error";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find("missing.bin"), std::string::npos) << error.what();
  }
  try {
    platform::replace_file(dir / "absent.tmp", dir / "target.bin");
    FAIL() << "expected an error";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find("target.bin"), std::string::npos) << error.what();
  }
}

TEST(Platform, RunCapturingStdoutReturnsTheOutputAndTheStatus) {
  int status = -2;
  EXPECT_EQ(platform::run_capturing_stdout("echo hello; exit 3", status), "hello\n");
  EXPECT_EQ(status, 3);
}

}  // namespace
}  // namespace olv2
