#include "olv2/util/cpu_bf16.h"

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#include <cpuid.h>
#define OLV2_X86_CPUID 1
#endif

namespace olv2 {

bool cpu_has_bf16_instructions() {
#ifdef OLV2_X86_CPUID
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_max(0, nullptr) < 7) return false;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  const bool amx_bf16 = (edx >> 22) & 1u;
  const unsigned subleaves = eax;
  bool avx512_bf16 = false;
  if (subleaves >= 1) {
    __cpuid_count(7, 1, eax, ebx, ecx, edx);
    avx512_bf16 = (eax >> 5) & 1u;
  }
  return amx_bf16 || avx512_bf16;
#else
  return true;
#endif
}

}  // namespace olv2
