// A UTF-8 sequence is well formed when it is the shortest encoding of a code point up to
// U+10FFFF that is not a surrogate (RFC 3629). This is the one check of it that the scalar
// scanners share: is_valid_utf8 (writer.hpp), the canonical body scan's reference
// (body_scan.hpp) and the line encoder (line_encoder.hpp).
#pragma once

#include <cstddef>

namespace msptk {

// Length of the well-formed UTF-8 sequence that starts at s[0] (a byte >= 0x80) within `avail`
// bytes, or 0 when it is ill-formed: no overlong forms, no surrogates, nothing past U+10FFFF.
inline std::size_t utf8_sequence_length(const unsigned char* s, std::size_t avail) {
  const unsigned char c = s[0];
  auto cont = [&](std::size_t k) { return (s[k] & 0xC0) == 0x80; };
  if (c < 0xC2) return 0;  // a continuation byte, or C0/C1 (overlong)
  if (c < 0xE0) return avail >= 2 && cont(1) ? 2 : 0;
  if (c < 0xF0) {
    if (avail < 3 || !cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && s[1] < 0xA0) return 0;  // overlong
    if (c == 0xED && s[1] >= 0xA0) return 0;  // a surrogate
    return 3;
  }
  if (c < 0xF5) {
    if (avail < 4 || !cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && s[1] < 0x90) return 0;  // overlong
    if (c == 0xF4 && s[1] >= 0x90) return 0;  // past U+10FFFF
    return 4;
  }
  return 0;
}

}  // namespace msptk
