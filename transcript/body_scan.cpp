#include "msptk/transcript/body_scan.hpp"
#include "msptk/transcript/utf8.hpp"

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "msptk/transcript/simd.hpp"

#ifdef MSPTK_HAS_AVX2_SCANS
#define MSPTK_BODY_SCAN_AVX2 1
#include <immintrin.h>
#endif

namespace msptk {

namespace {

constexpr std::size_t npos = std::string_view::npos;
constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
constexpr std::uint64_t kHighs = 0x8080808080808080ULL;

// The high bit of every byte of `w` that is a quote, a backslash, a control character or not
// ASCII (the only bytes a canonical raw body cannot copy as they are); 0 when there is none.
// Bytes above the first flagged one may be flagged falsely, the first flagged one never is.
inline std::uint64_t special_bytes(std::uint64_t w) {
  auto zero = [](std::uint64_t v) { return (v - kOnes) & ~v & kHighs; };
  const std::uint64_t below_space = (w - kOnes * 0x20) & ~w & kHighs;
  return (w & kHighs) | below_space | zero(w ^ (kOnes * '"')) | zero(w ^ (kOnes * '\\'));
}

inline int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;  // upper case is valid JSON but not what the writer writes
}

enum class Step { closed, failed, reached };

// The scalar scan from s[i], one token (a run of plain bytes, an escape, a UTF-8 sequence) at a
// time, until the closing quote (i at it), a byte that is not canonical, or the first token
// boundary at or after `stop` (reached). Decoded bytes go to `dst` when it is not null.
Step scan_scalar(std::string_view s, std::size_t& i, char*& dst, std::size_t stop) {
  std::size_t run = i;  // start of the bytes not yet copied
  auto flush = [&](std::size_t to) {
    if (dst && to > run) {
      std::memcpy(dst, s.data() + run, to - run);
      dst += to - run;
    }
  };
  while (true) {
    while (i + 8 <= s.size()) {
      std::uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if (const std::uint64_t special = special_bytes(w)) {
        if constexpr (std::endian::native == std::endian::little) i += static_cast<std::size_t>(std::countr_zero(special)) / 8;
        break;
      }
      i += 8;
    }
    if (i >= stop && i < s.size()) {
      // Plain bytes carried the scan past `stop`; step back to it (still a token boundary, as
      // plain bytes are one-byte tokens) unless that would undo a token started before it.
      if (run <= stop) i = stop;
      flush(i);
      return Step::reached;
    }
    if (i >= s.size()) return Step::failed;
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"') {
      flush(i);
      return Step::closed;
    }
    if (c == '\\') {
      flush(i);
      if (i + 1 >= s.size()) return Step::failed;
      char decoded;
      std::size_t width = 2;
      switch (s[i + 1]) {
        case '"': decoded = '"'; break;
        case '\\': decoded = '\\'; break;
        case 'b': decoded = '\b'; break;
        case 'f': decoded = '\f'; break;
        case 'n': decoded = '\n'; break;
        case 'r': decoded = '\r'; break;
        case 't': decoded = '\t'; break;
        case 'u': {
          if (i + 6 > s.size() || s[i + 2] != '0' || s[i + 3] != '0') return Step::failed;
          const int hi = hex_digit(s[i + 4]), lo = hex_digit(s[i + 5]);
          if (hi < 0 || lo < 0 || hi > 1) return Step::failed;
          decoded = static_cast<char>(hi * 16 + lo);
          // The writer uses the short escapes for these.
          if (decoded == '\b' || decoded == '\f' || decoded == '\n' || decoded == '\r' || decoded == '\t')
            return Step::failed;
          width = 6;
          break;
        }
        default: return Step::failed;  // `\/` and the like: valid JSON, not canonical
      }
      if (dst) *dst++ = decoded;
      i += width;
      run = i;
      if (i >= stop) return Step::reached;
      continue;
    }
    if (c < 0x20) return Step::failed;  // not JSON: the general path reports it
    if (c >= 0x80) {
      const std::size_t len =
          utf8_sequence_length(reinterpret_cast<const unsigned char*>(s.data()) + i, s.size() - i);
      if (len == 0) return Step::failed;
      i += len;
      if (i >= stop) {
        flush(i);
        return Step::reached;
      }
      continue;
    }
    ++i;
  }
}

std::size_t finish(Step step, std::size_t i, char* out, char* dst, std::size_t* written) {
  if (step != Step::closed) return npos;
  if (out) *written = static_cast<std::size_t>(dst - out);
  return i;
}

#ifdef MSPTK_BODY_SCAN_AVX2

#define MSPTK_AVX2 __attribute__((target("avx2,bmi")))

MSPTK_AVX2 inline std::uint64_t mask64(__m256i lo, __m256i hi) {
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(lo)) |
         (static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(hi))) << 32);
}

// The bytes of `input` shifted up by N, the last N bytes of `prev` coming in below.
template <int N>
MSPTK_AVX2 inline __m256i prev_bytes(__m256i input, __m256i prev) {
  return _mm256_alignr_epi8(input, _mm256_permute2x128_si256(prev, input, 0x21), 16 - N);
}

MSPTK_AVX2 inline __m256i table16(__m256i table, __m256i nibbles) { return _mm256_shuffle_epi8(table, nibbles); }

// Keiser and Lemire's lookup check: a non-zero byte where the UTF-8 sequence that byte is part
// of is not well formed (too short, too long, overlong, a surrogate, above U+10FFFF).
MSPTK_AVX2 inline __m256i utf8_errors(__m256i input, __m256i prev_input) {
  constexpr char TOO_SHORT = 1 << 0, TOO_LONG = 1 << 1, OVERLONG_3 = 1 << 2, TOO_LARGE = 1 << 3,
                 SURROGATE = 1 << 4, OVERLONG_2 = 1 << 5, TOO_LARGE_1000 = 1 << 6, OVERLONG_4 = 1 << 6;
  constexpr char TWO_CONTS = static_cast<char>(1 << 7);
  constexpr char CARRY = TOO_SHORT | TOO_LONG | TWO_CONTS;
  const __m256i low = _mm256_set1_epi8(0x0F);
  const __m256i prev1 = prev_bytes<1>(input, prev_input);
  const __m256i byte_1_high = table16(
      _mm256_setr_epi8(TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TWO_CONTS,
                       TWO_CONTS, TWO_CONTS, TWO_CONTS, TOO_SHORT | OVERLONG_2, TOO_SHORT,
                       TOO_SHORT | OVERLONG_3 | SURROGATE, TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
                       TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TWO_CONTS,
                       TWO_CONTS, TWO_CONTS, TWO_CONTS, TOO_SHORT | OVERLONG_2, TOO_SHORT,
                       TOO_SHORT | OVERLONG_3 | SURROGATE, TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4),
      _mm256_and_si256(_mm256_srli_epi16(prev1, 4), low));
  constexpr char L = CARRY | TOO_LARGE | TOO_LARGE_1000;
  const __m256i byte_1_low = table16(
      _mm256_setr_epi8(CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4, CARRY | OVERLONG_2, CARRY, CARRY, CARRY | TOO_LARGE,
                       L, L, L, L, L, L, L, L, L | SURROGATE, L, L,
                       CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4, CARRY | OVERLONG_2, CARRY, CARRY, CARRY | TOO_LARGE,
                       L, L, L, L, L, L, L, L, L | SURROGATE, L, L),
      _mm256_and_si256(prev1, low));
  constexpr char C8 = TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4;
  constexpr char C9 = TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE;
  constexpr char CA = TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE;
  const __m256i byte_2_high = table16(
      _mm256_setr_epi8(TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, C8, C9,
                       CA, CA, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
                       TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, C8, C9, CA, CA, TOO_SHORT, TOO_SHORT, TOO_SHORT,
                       TOO_SHORT),
      _mm256_and_si256(_mm256_srli_epi16(input, 4), low));
  const __m256i special = _mm256_and_si256(_mm256_and_si256(byte_1_high, byte_1_low), byte_2_high);
  // A third or fourth byte of a sequence must be a continuation; TWO_CONTS says it is one.
  const __m256i third = _mm256_subs_epu8(prev_bytes<2>(input, prev_input), _mm256_set1_epi8(static_cast<char>(0xE0 - 0x80)));
  const __m256i fourth = _mm256_subs_epu8(prev_bytes<3>(input, prev_input), _mm256_set1_epi8(static_cast<char>(0xF0 - 0x80)));
  const __m256i must23 = _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8(static_cast<char>(0x80)));
  return _mm256_xor_si256(must23, special);
}

// Non-zero when the last bytes of `input` start a sequence they do not finish.
MSPTK_AVX2 inline bool ends_incomplete(__m256i input) {
  const __m256i max = _mm256_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                       -1, -1, -1, -1, -1, -1, -1, -1, -1, static_cast<char>(0xF0 - 1),
                                       static_cast<char>(0xE0 - 1), static_cast<char>(0xC0 - 1));
  return !_mm256_testz_si256(_mm256_subs_epu8(input, max), _mm256_subs_epu8(input, max));
}

MSPTK_AVX2 inline std::uint64_t eq64(__m256i a, __m256i b, char c) {
  const __m256i v = _mm256_set1_epi8(c);
  return mask64(_mm256_cmpeq_epi8(a, v), _mm256_cmpeq_epi8(b, v));
}

inline char decode_escape(unsigned char c) {
  switch (c) {
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return static_cast<char>(c);  // '"' and '\\'
  }
}

// Copies block[from, to) to dst (to - from <= 64); with `roomy`, as whole 32-byte stores (the
// bytes past `to` are written over later), which needs 64 readable bytes at block + from.
MSPTK_AVX2 inline char* copy_run(char* dst, const char* block, std::size_t from, std::size_t to, bool roomy) {
  const std::size_t len = to - from;
  if (roomy) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + from)));
    if (len > 32)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 32),
                          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + from + 32)));
  } else if (len) {
    std::memcpy(dst, block + from, len);
  }
  return dst + len;
}

// For each 8-bit mask of bytes to drop, the pshufb control that packs the other bytes of an
// 8-byte group to its front.
struct PackTable {
  alignas(16) unsigned char control[256][16];
  unsigned char kept[256];
  constexpr PackTable() : control(), kept() {
    for (unsigned m = 0; m < 256; ++m) {
      unsigned k = 0;
      for (unsigned b = 0; b < 8; ++b)
        if (!(m & (1u << b))) control[m][k++] = static_cast<unsigned char>(b);
      kept[m] = static_cast<unsigned char>(k);
      for (; k < 16; ++k) control[m][k] = 0x80;
    }
  }
};
constexpr PackTable kPack;

// Writes block[0, to) without the bytes whose bit is set in `drop`, 8 bytes at a time (each
// store writes 8 bytes; those past what is kept are written over later or lie in the room the
// decoded body leaves, since it is never longer than the bytes read).
MSPTK_AVX2 inline char* compress(char* dst, const char* block, std::uint64_t drop, std::size_t to) {
  for (std::size_t g = 0; g < to; g += 8) {
    const unsigned m = static_cast<unsigned>((drop >> g) & 0xFF);
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(block + g));
    const __m128i control = _mm_load_si128(reinterpret_cast<const __m128i*>(kPack.control[m]));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(dst), _mm_shuffle_epi8(bytes, control));
    dst += kPack.kept[m];
  }
  return dst;
}

MSPTK_AVX2 std::size_t scan_avx2(std::string_view s, std::size_t i, char* out, std::size_t* written) {
  const char* p = s.data();
  const std::size_t n = s.size();
  char* dst = out;
  constexpr std::uint64_t kEven = 0x5555555555555555ULL;
  while (true) {
    // Fresh state at a token boundary.
    std::uint64_t carry_escaped = 0;  // 1: s[i] is escaped by a backslash that ends the last block
    bool carry_incomplete = false;    // the last block ended inside a UTF-8 sequence
    __m256i prev_input = _mm256_setzero_si256();
    bool fallback = false;
    while (i + 64 <= n) {
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
      const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 32));
      const std::uint64_t bs = eq64(a, b, '\\');
      const std::uint64_t quote = eq64(a, b, '"');
      // Bytes <= 0x1F: min(x, 0x1F) == x.
      const __m256i c1f = _mm256_set1_epi8(0x1F);
      const std::uint64_t ctl = mask64(_mm256_cmpeq_epi8(_mm256_min_epu8(a, c1f), a),
                                       _mm256_cmpeq_epi8(_mm256_min_epu8(b, c1f), b));
      const std::uint64_t high = mask64(a, b);
      // The escaped characters (simdjson's find_escaped_branchless).
      const std::uint64_t backslash = bs & ~carry_escaped;
      const std::uint64_t follows_escape = (backslash << 1) | carry_escaped;
      const std::uint64_t odd_starts = backslash & ~kEven & ~follows_escape;
      std::uint64_t even_sequences;
      const bool carry_out = __builtin_add_overflow(odd_starts, backslash, &even_sequences);
      const std::uint64_t escaped = (kEven ^ (even_sequences << 1)) & follows_escape;
      const std::uint64_t ends = quote & ~escaped;
      const unsigned end = ends ? static_cast<unsigned>(_tzcnt_u64(ends)) : 64;
      const std::uint64_t before = end == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << end) - 1;
      const std::uint64_t upto = end >= 63 ? ~std::uint64_t{0} : (std::uint64_t{1} << (end + 1)) - 1;
      if (ctl & before) return npos;
      const std::uint64_t esc = escaped & before;
      // Escaped bytes other than a quote or a backslash: n, t, r, b, f (decoded to another
      // byte), u (left to the scalar scan), or anything else (not canonical).
      const std::uint64_t other = esc & ~(bs | quote);
      if (other) {
        const std::uint64_t allowed = eq64(a, b, 'n') | eq64(a, b, 't') | eq64(a, b, 'r') | eq64(a, b, 'b') | eq64(a, b, 'f');
        if (other & ~allowed) {
          if (other & ~allowed & eq64(a, b, 'u')) {
            fallback = true;  // the scalar scan decides `\u` escapes
            break;
          }
          return npos;
        }
      }
      if (high || carry_incomplete) {
        const __m256i ea = utf8_errors(a, prev_input);
        const __m256i eb = utf8_errors(b, a);
        const __m256i zero = _mm256_setzero_si256();
        const std::uint64_t bad = ~mask64(_mm256_cmpeq_epi8(ea, zero), _mm256_cmpeq_epi8(eb, zero));
        if (bad & upto) return npos;
        carry_incomplete = end == 64 && ends_incomplete(b);
      }
      prev_input = b;
      // Decode: copy the plain runs, write each escape's byte.
      if (dst && !other) {
        // Every escape here is \" or \\ (what the outer layer of JSON inside JSON holds): the
        // decoded bytes are the block without the backslashes that begin an escape.
        const std::uint64_t starts = bs & ~escaped & before;
        dst = starts ? compress(dst, p + i, starts | ~before, end) : copy_run(dst, p + i, 0, end, i + 128 <= n);
      } else if (dst) {
        const std::size_t stop = end;
        std::uint64_t starts = bs & ~escaped & before;  // the backslashes that begin an escape
        std::size_t cur = 0;
        if (carry_escaped) {
          *dst++ = decode_escape(static_cast<unsigned char>(p[i]));
          cur = 1;
        }
        const bool roomy = i + 128 <= n;  // 64 bytes can be loaded from anywhere in this block
        while (starts) {
          const std::size_t k = _tzcnt_u64(starts);
          starts &= starts - 1;
          dst = copy_run(dst, p + i, cur, k, roomy);
          if (k + 1 < 64) {
            *dst++ = decode_escape(static_cast<unsigned char>(p[i + k + 1]));
            cur = k + 2;
          } else {
            cur = 64;  // the next block writes the escaped byte
          }
        }
        if (cur < stop) dst = copy_run(dst, p + i, cur, stop, roomy);
      }
      if (end < 64) {
        if (out) *written = static_cast<std::size_t>(dst - out);
        return i + end;
      }
      carry_escaped = carry_out ? 1 : 0;
      i += 64;
    }
    // Hand over to the scalar scan at a token boundary: before the backslash whose escape the
    // next block would have finished, or before the UTF-8 sequence it would have.
    std::size_t r = i;
    if (carry_escaped) {
      r = i - 1;  // the backslash: not written yet
    } else if (carry_incomplete) {
      const auto* u = reinterpret_cast<const unsigned char*>(p);
      if (u[i - 1] >= 0xC0) r = i - 1;
      else if (u[i - 2] >= 0xE0) r = i - 2;
      else if (u[i - 3] >= 0xF0) r = i - 3;
      if (dst) dst -= i - r;  // those bytes were copied as they are
    }
    if (!fallback) {
      const Step step = scan_scalar(s, r, dst, npos);
      return finish(step, r, out, dst, written);
    }
    // The scalar scan takes this block and hands back at the next token boundary after it.
    const Step step = scan_scalar(s, r, dst, i + 64);
    if (step != Step::reached) return finish(step, r, out, dst, written);
    i = r;
  }
}

// canonical_line_may_name_id (kAnyLine false) and line_may_name_id (true), 32 start positions a
// step: four loads one byte apart.
template <bool kAnyLine>
MSPTK_AVX2 bool may_name_id_avx2(std::string_view s) {
  const char* p = s.data();
  const std::size_t n = s.size();
  const __m256i backslash = _mm256_set1_epi8('\\'), quote = _mm256_set1_epi8('"'), i_ = _mm256_set1_epi8('i'),
                d_ = _mm256_set1_epi8('d'), u_ = _mm256_set1_epi8('u');
  std::size_t i = 0;
  for (; i + 35 <= n; i += 32) {
    const auto* q = reinterpret_cast<const __m256i*>(p + i);
    const __m256i b0 = _mm256_loadu_si256(q);
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 1));
    const __m256i b2 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 2));
    const __m256i b3 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 3));
    const __m256i escape = _mm256_cmpeq_epi8(b0, backslash);
    const __m256i id = _mm256_and_si256(_mm256_and_si256(escape, _mm256_cmpeq_epi8(b1, quote)),
                                        _mm256_and_si256(_mm256_cmpeq_epi8(b2, i_), _mm256_cmpeq_epi8(b3, d_)));
    const __m256i u = kAnyLine ? _mm256_and_si256(escape, _mm256_cmpeq_epi8(b1, u_))
                               : _mm256_and_si256(_mm256_and_si256(escape, _mm256_cmpeq_epi8(b1, backslash)),
                                                  _mm256_cmpeq_epi8(b2, u_));
    const __m256i any = _mm256_or_si256(id, u);
    if (!_mm256_testz_si256(any, any)) return true;
  }
  // The start positions from i on.
  const std::string_view rest = s.substr(i);
  return rest.find("\\\"id") != std::string_view::npos ||
         rest.find(kAnyLine ? "\\u" : "\\\\u") != std::string_view::npos;
}

#endif  // MSPTK_BODY_SCAN_AVX2

}  // namespace

bool body_scan_uses_simd() {
  return avx2_scans_enabled();
}

std::size_t scan_canonical_body_scalar(std::string_view s, std::size_t i, char* out, std::size_t* written) {
  char* dst = out;
  const Step step = scan_scalar(s, i, dst, npos);
  return finish(step, i, out, dst, written);
}

bool canonical_line_may_name_id_scalar(std::string_view line) {
  return line.find("\\\"id") != std::string_view::npos || line.find("\\\\u") != std::string_view::npos;
}

bool canonical_line_may_name_id(std::string_view line) {
#ifdef MSPTK_BODY_SCAN_AVX2
  if (body_scan_uses_simd()) return may_name_id_avx2<false>(line);
#endif
  return canonical_line_may_name_id_scalar(line);
}

bool line_may_name_id_scalar(std::string_view line) {
  return line.find("\\\"id") != std::string_view::npos || line.find("\\u") != std::string_view::npos;
}

bool line_may_name_id(std::string_view line) {
#ifdef MSPTK_BODY_SCAN_AVX2
  if (body_scan_uses_simd()) return may_name_id_avx2<true>(line);
#endif
  return line_may_name_id_scalar(line);
}

std::size_t scan_canonical_body(std::string_view s, std::size_t i, char* out, std::size_t* written) {
#ifdef MSPTK_BODY_SCAN_AVX2
  if (body_scan_uses_simd()) return scan_avx2(s, i, out, written);
#endif
  return scan_canonical_body_scalar(s, i, out, written);
}

}  // namespace msptk
