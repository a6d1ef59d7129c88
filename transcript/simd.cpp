#include "msptk/transcript/simd.hpp"

#include <cstdlib>
#include <cstring>

namespace msptk {

namespace {

bool detect() {
#ifdef MSPTK_HAS_AVX2_SCANS
  if (const char* off = std::getenv("MSPTK_NO_SIMD"); off && *off && std::strcmp(off, "0") != 0) return false;
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi");
#else
  return false;
#endif
}

}  // namespace

bool avx2_scans_enabled() {
  static const bool enabled = detect();
  return enabled;
}

}  // namespace msptk
