// The CPU's bf16 instructions as CPUID reports them, against the flags Linux lists for the CPU.
#include "olv2/util/cpu_bf16.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace olv2 {
namespace {

TEST(CpuBf16, AgreesWithTheFlagsLinuxLists) {
#if defined(__linux__) && (defined(__x86_64__) || defined(__i386__))
  std::ifstream cpuinfo("/proc/cpuinfo");
  ASSERT_TRUE(cpuinfo.good());
  std::string line;
  while (std::getline(cpuinfo, line) && line.rfind("flags", 0) != 0) {
  }
  ASSERT_EQ(line.rfind("flags", 0), 0u) << "no flags line in /proc/cpuinfo";
  std::istringstream flags(line.substr(line.find(':') + 1));
  bool listed = false;
  for (std::string flag; flags >> flag;)
    listed = listed || flag == "avx512_bf16" || flag == "amx_bf16";
  EXPECT_EQ(cpu_has_bf16_instructions(), listed);
#else
  GTEST_SKIP() << "Linux on x86 lists the CPU's flags in /proc/cpuinfo; elsewhere there is nothing "
                  "to compare";
#endif
}

}  // namespace
}  // namespace olv2
