// Whether msptk's vector scans may run: the AVX2 scan of canonical line bodies (body_scan.hpp)
// and the AVX2 string scan of the text key (text_key.hpp). Both need a CPU with AVX2 and BMI1;
// MSPTK_NO_SIMD=1 (any value but empty or 0) turns them off, and their scalar twins, which give
// the same results, run instead. Decided once per process.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MSPTK_HAS_AVX2_SCANS 1
#endif

namespace msptk {

// True when the AVX2 scans run (the CPU has AVX2 and BMI1, MSPTK_NO_SIMD is not set).
bool avx2_scans_enabled();

}  // namespace msptk
