#include "msptk/transcript/text_key.hpp"

#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/key_hash.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "msptk/transcript/simd.hpp"

#ifdef MSPTK_HAS_AVX2_SCANS
#define MSPTK_TEXT_KEY_AVX2 1
#include <immintrin.h>
#endif

namespace msptk {

namespace {

using key_hash::combine;
using key_hash::mix;

constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
constexpr std::uint64_t kHighs = 0x8080808080808080ULL;

// The high bit of the first byte of `w` (in memory order) that is a quote, a backslash or a
// control byte is set, and no bit below it; bits above it may be set falsely (borrows).
inline std::uint64_t special_bytes(std::uint64_t w) {
  auto zero = [](std::uint64_t v) { return (v - kOnes) & ~v & kHighs; };
  const std::uint64_t below_space = (w - kOnes * 0x20) & ~w & kHighs;
  return below_space | zero(w ^ (kOnes * '"')) | zero(w ^ (kOnes * '\\'));
}

inline bool is_special(unsigned char c) { return c == '"' || c == '\\' || c < 0x20; }

// The first quote, backslash or control byte in [p, end), or end: 8 bytes a step.
inline const char* find_special_scalar(const char* p, const char* end) {
  static_assert(std::endian::native == std::endian::little, "the word scan reads bytes little-endian");
  while (end - p >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    if (const std::uint64_t s = special_bytes(w)) return p + std::countr_zero(s) / 8;
    p += 8;
  }
  while (p < end && !is_special(static_cast<unsigned char>(*p))) ++p;
  return p;
}

// The byte each short escape stands for (`\n` -> LF), by the byte after the backslash; 0 for
// `\u` (left to the general path) and for what is not an escape. A table, not a switch: the
// escapes of a text come in no predictable order.
struct EscapeTable {
  char decoded[256];
  constexpr EscapeTable() : decoded() {
    for (const char* pair : {"\"\"", "\\\\", "//", "b\b", "f\f", "n\n", "r\r", "t\t"})
      decoded[static_cast<unsigned char>(pair[0])] = pair[1];
  }
};
constexpr EscapeTable kEscapes;

// Decodes the escape at p (a backslash) to dst; false when it is not a short escape.
inline bool decode_escape(const char*& p, const char* end, char*& dst) {
  if (end - p < 2) return false;
  const char d = kEscapes.decoded[static_cast<unsigned char>(p[1])];
  if (d == 0) return false;
  *dst++ = d;
  p += 2;
  return true;
}

// Copies the plain bytes from p to dst up to the next quote, backslash or control byte (p then
// at it); false when the text ends first. Whole words are stored: dst must have room for the
// rest of the text (a decoded string is never longer than its text, so it does).
inline bool copy_plain_scalar(const char*& p, const char* end, char*& dst) {
  while (end - p >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    std::memcpy(dst, &w, 8);
    if (const std::uint64_t s = special_bytes(w)) {
      const int k = std::countr_zero(s) / 8;
      p += k;
      dst += k;
      return true;
    }
    p += 8;
    dst += 8;
  }
  while (p < end && !is_special(static_cast<unsigned char>(*p))) *dst++ = *p++;
  return p < end;
}

// The rest of an escaped string from its first backslash at p: decoded to dst (room for end - p
// bytes). Returns the closing quote, or nullptr to decline.
inline const char* decode_scalar(const char* p, const char* end, char*& out) {
  char* dst = out;  // in a register, not through the reference
  while (true) {
    if (!decode_escape(p, end, dst) || !copy_plain_scalar(p, end, dst)) return nullptr;
    if (*p == '"') break;
    if (*p != '\\') return nullptr;  // a raw control byte
  }
  out = dst;
  return p;
}

#ifdef MSPTK_TEXT_KEY_AVX2

#define MSPTK_AVX2 __attribute__((target("avx2,bmi")))

// The quotes, backslashes and control bytes of 32 bytes (a control byte is <= 0x1F: min(v, 0x1F) == v).
MSPTK_AVX2 inline __m256i specials(__m256i v) {
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i backslash = _mm256_set1_epi8('\\');
  const __m256i c1f = _mm256_set1_epi8(0x1F);
  return _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, backslash)),
                         _mm256_cmpeq_epi8(_mm256_min_epu8(v, c1f), v));
}

// Bit i set where byte i of the 64 bytes (lo: the first 32) is flagged.
MSPTK_AVX2 inline std::uint64_t mask64(__m256i lo, __m256i hi) {
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(lo)) |
         (static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(hi))) << 32);
}

// The same as find_special_scalar, 64 bytes a step (then 32, then the word scan for the rest).
MSPTK_AVX2 const char* find_special_avx2(const char* p, const char* end) {
  while (end - p >= 64) {
    const __m256i a = specials(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    const __m256i b = specials(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32)));
    if (!_mm256_testz_si256(_mm256_or_si256(a, b), _mm256_or_si256(a, b))) {
      return p + _tzcnt_u64(mask64(a, b));
    }
    p += 64;
  }
  if (end - p >= 32) {
    const auto mask = static_cast<std::uint32_t>(
        _mm256_movemask_epi8(specials(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)))));
    if (mask) return p + _tzcnt_u32(mask);
    p += 32;
  }
  return find_special_scalar(p, end);
}

// copy_plain_scalar 32 bytes a step.
MSPTK_AVX2 inline bool copy_plain_avx2(const char*& p, const char* end, char*& dst) {
  while (end - p >= 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), v);
    if (const auto mask = static_cast<std::uint32_t>(_mm256_movemask_epi8(specials(v)))) {
      const unsigned k = _tzcnt_u32(mask);
      p += k;
      dst += k;
      return true;
    }
    p += 32;
    dst += 32;
  }
  return copy_plain_scalar(p, end, dst);
}

// The quotes and control bytes of 32 bytes.
MSPTK_AVX2 inline __m256i quotes_and_controls(__m256i v) {
  const __m256i c1f = _mm256_set1_epi8(0x1F);
  return _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"')), _mm256_cmpeq_epi8(_mm256_min_epu8(v, c1f), v));
}

// Copies [src, src + n) to dst (n <= 64), as two 32-byte stores when 64 bytes can be read at
// src: the bytes stored past n land in the scratch beyond the string decoded so far (the
// caller's room covers them), written over by what follows or unused.
MSPTK_AVX2 inline char* copy_run(char* dst, const char* src, std::size_t n, bool roomy) {
  if (roomy) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 32),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 32)));
  } else {
    std::memcpy(dst, src, n);
  }
  return dst + n;
}

// decode_scalar 64 bytes a step: the backslashes and the quotes or control bytes of a block
// become two bit masks, and the escapes of the block are taken in order from the masks (no
// reload, no new compare per escape); the plain runs between them are copied as whole 32-byte
// stores while 64 bytes of the text lie ahead (room: dst - out <= the text consumed, and the
// scratch holds the rest of the text). The last bytes go through the per-escape loop.
MSPTK_AVX2 const char* decode_avx2(const char* p, const char* end, char*& out) {
  char* dst = out;
  const __m256i backslash = _mm256_set1_epi8('\\');
  while (end - p >= 64) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
    const std::uint64_t escapes = mask64(_mm256_cmpeq_epi8(a, backslash), _mm256_cmpeq_epi8(b, backslash));
    const std::uint64_t stops = mask64(quotes_and_controls(a), quotes_and_controls(b));
    std::size_t cur = 0;  // the block's bytes before cur are decoded
    while (true) {
      // The next backslash or stop at or after cur (an escaped byte lies before cur: skipped).
      const std::uint64_t live = (escapes | stops) & (~std::uint64_t{0} << cur);
      if (!live) {
        dst = copy_run(dst, p + cur, 64 - cur, end - (p + cur) >= 64);
        p += 64;
        break;
      }
      const std::size_t k = _tzcnt_u64(live);
      dst = copy_run(dst, p + cur, k - cur, end - (p + cur) >= 64);
      if (stops & (std::uint64_t{1} << k)) {
        if (p[k] != '"') return nullptr;  // a raw control byte
        out = dst;
        return p + k;
      }
      // A backslash at k: its escape is p[k + 1] (in the next block when k is 63).
      if (end - (p + k) < 2) return nullptr;
      const char d = kEscapes.decoded[static_cast<unsigned char>(p[k + 1])];
      if (d == 0) return nullptr;
      *dst++ = d;
      cur = k + 2;
      if (cur >= 64) {
        p += cur;
        break;
      }
    }
  }
  // The last bytes (fewer than 64), from a token boundary.
  while (true) {
    if (!copy_plain_avx2(p, end, dst)) return nullptr;
    if (*p == '"') break;
    if (*p != '\\' || !decode_escape(p, end, dst)) return nullptr;
  }
  out = dst;
  return p;
}

#endif  // MSPTK_TEXT_KEY_AVX2

// The first quote, backslash or control byte in [p, end), or end. Keys and short values end
// within the first 16 bytes: those are looked at in line, longer strings go to the vector scan.
template <bool Simd>
inline const char* find_special(const char* p, const char* end) {
#ifdef MSPTK_TEXT_KEY_AVX2
  if constexpr (Simd) {
    if (end - p >= 16) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      if (const std::uint64_t s = special_bytes(w)) return p + std::countr_zero(s) / 8;
      std::memcpy(&w, p + 8, 8);
      if (const std::uint64_t s = special_bytes(w)) return p + 8 + std::countr_zero(s) / 8;
      return find_special_avx2(p + 16, end);
    }
  }
#endif
  return find_special_scalar(p, end);
}

// The top-level members classify() looks at.
enum class Member { other, jsonrpc, method, id, result, error, params };

Member envelope_member(std::string_view key) {
  switch (key.size()) {
    case 2: return key == "id" ? Member::id : Member::other;
    case 5: return key == "error" ? Member::error : Member::other;
    case 6:
      if (key == "method") return Member::method;
      if (key == "result") return Member::result;
      if (key == "params") return Member::params;
      return Member::other;
    case 7: return key == "jsonrpc" ? Member::jsonrpc : Member::other;
    default: return Member::other;
  }
}

// Member-name hashes of the open objects, back to back (per thread, reused: no allocation per
// frame once it is as large as the widest frame's).
thread_local std::vector<std::uint64_t> t_keys;
thread_local std::vector<std::uint64_t> t_sorted;

// True when two of the hashes are equal: a duplicate member name (parse_json's error) or, once
// in 2^64, two names with one hash. Either way the frame is declined.
bool has_equal(const std::uint64_t* first, const std::uint64_t* last) {
  const std::size_t n = static_cast<std::size_t>(last - first);
  if (n <= 16) {
    for (std::size_t i = 1; i < n; ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (first[i] == first[j]) return true;
    return false;
  }
  t_sorted.assign(first, last);
  std::sort(t_sorted.begin(), t_sorted.end());
  return std::adjacent_find(t_sorted.begin(), t_sorted.end()) != t_sorted.end();
}

// One pass over a frame's JSON text: a recursive descent (depth bounded by
// text_key_max_depth) that hashes each value as KeyWalk does in exact mode, and returns false
// (decline) at the first byte it does not accept.
struct Pruning {
  std::size_t keep;
  std::string& out;
};

template <bool Simd>
class Scanner {
 public:
  Scanner(std::string_view text, std::string& scratch, Pruning* pruning = nullptr)
      : p_(text.data()), end_(text.data() + text.size()), scratch_(scratch), keys_(t_keys), pruning_(pruning),
        copied_(text.data()) {}

  std::optional<TextKey> run() {
    keys_.clear();
    skip_ws();
    if (p_ == end_ || *p_ != '{') return std::nullopt;
    ++p_;
    Root root;
    std::uint64_t h = 0;
    if (!object(0, h, &root)) return std::nullopt;
    skip_ws();
    if (p_ != end_) return std::nullopt;  // trailing bytes
    if (!root.jsonrpc || !root.has_method) return std::nullopt;
    if (pruning_) pruning_->out.append(copied_, end_);
    return TextKey{root.method, h};
  }

 private:
  struct Root {
    bool jsonrpc = false;  // "jsonrpc": "2.0"
    bool has_method = false;
    std::string_view method;
  };

  [[gnu::always_inline]] void skip_ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  // A string whose opening quote is behind p_: its decoded bytes (in the text when it has no
  // escape, else in scratch), p_ after its closing quote.
  [[gnu::always_inline]] bool string(std::string_view& out, bool& escaped) {
    const char* start = p_;
    const char* q = find_special<Simd>(start, end_);
    if (q == end_) return false;
    if (*q == '"') {
      out = std::string_view(start, static_cast<std::size_t>(q - start));
      escaped = false;
      p_ = q + 1;
      return true;
    }
    if (*q != '\\') return false;  // a raw control byte
    // Decoded, the string is never longer than the rest of the text.
    const auto room = static_cast<std::size_t>(end_ - start);
    if (scratch_.size() < room) scratch_.resize(room);
    char* const out_begin = scratch_.data();
    const auto prefix = static_cast<std::size_t>(q - start);
    std::memcpy(out_begin, start, prefix);
    char* dst = out_begin + prefix;
#ifdef MSPTK_TEXT_KEY_AVX2
    q = Simd ? decode_avx2(q, end_, dst) : decode_scalar(q, end_, dst);
#else
    q = decode_scalar(q, end_, dst);
#endif
    if (!q) return false;
    out = std::string_view(out_begin, static_cast<std::size_t>(dst - out_begin));
    escaped = true;
    p_ = q + 1;
    return true;
  }

  [[gnu::always_inline]] bool literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() || std::memcmp(p_, word.data(), word.size()) != 0) return false;
    p_ += word.size();
    return true;
  }

  // -?(0|[1-9][0-9]{0,17}): an int64 for every parser; "-0" is declined (a double for some).
  // What may follow (a fraction, an exponent, a 19th digit) is not a delimiter: the caller declines.
  [[gnu::always_inline]] bool integer(std::uint64_t& h) {
    const bool neg = *p_ == '-';
    if (neg) ++p_;
    if (p_ == end_) return false;
    std::int64_t v = 0;
    if (*p_ == '0') {
      if (neg) return false;
      ++p_;
    } else if (*p_ >= '1' && *p_ <= '9') {
      const char* const first = p_;
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
        if (p_ - first == 18) return false;
        v = v * 10 + (*p_ - '0');
        ++p_;
      }
    } else {
      return false;
    }
    h = mix(static_cast<std::uint64_t>(neg ? -v : v));
    return true;
  }

  bool value(std::size_t depth, std::uint64_t& h) {
    if (p_ == end_) return false;
    switch (*p_) {
      case '"': {
        const char* const token = p_;
        ++p_;
        std::string_view s;
        bool escaped = false;
        if (!string(s, escaped)) return false;
        h = combine(key_hash::kString, key_hash::bytes(s));
        if (pruning_) prune(token, s);
        return true;
      }
      case '{': ++p_; return object(depth + 1, h, nullptr);
      case '[': ++p_; return array(depth + 1, h);
      case 't': h = key_hash::kTrue; return literal("true");
      case 'f': h = key_hash::kFalse; return literal("false");
      case 'n': h = key_hash::kNull; return literal("null");
      default: return integer(h);
    }
  }

  // An object whose `{` is behind p_, at `depth` (the root: 0; `root` then notes the envelope).
  bool object(std::size_t depth, std::uint64_t& h, Root* root) {
    if (depth >= text_key_max_depth) return false;
    std::uint64_t sum = key_hash::kObject;
    skip_ws();
    if (p_ < end_ && *p_ == '}') {
      ++p_;
      h = mix(sum);
      return true;
    }
    const std::size_t first_key = keys_.size();
    while (true) {
      if (p_ == end_ || *p_ != '"') return false;
      ++p_;
      std::string_view key;
      bool escaped = false;
      if (!string(key, escaped)) return false;
      const std::uint64_t key_hash = key_hash::bytes(key);
      keys_.push_back(key_hash);
      const Member member = root ? envelope_member(key) : Member::other;
      skip_ws();
      if (p_ == end_ || *p_ != ':') return false;
      ++p_;
      skip_ws();
      std::uint64_t vh = 0;
      switch (member) {
        case Member::other:
          if (!value(depth, vh)) return false;
          break;
        case Member::id:      // a request
        case Member::result:  // a response, or invalid
        case Member::error: return false;
        case Member::params:
          if (p_ == end_ || (*p_ != '{' && *p_ != '[')) return false;
          if (!value(depth, vh)) return false;
          break;
        case Member::jsonrpc:
        case Member::method: {
          if (p_ == end_ || *p_ != '"') return false;
          ++p_;
          std::string_view s;
          bool value_escaped = false;
          if (!string(s, value_escaped)) return false;
          if (member == Member::jsonrpc) {
            if (s != "2.0") return false;
            root->jsonrpc = true;
          } else {
            if (value_escaped) return false;  // the method must be a view into the text
            root->has_method = true;
            root->method = s;
          }
          vh = combine(key_hash::kString, key_hash::bytes(s));
          break;
        }
      }
      sum += combine(key_hash, vh);
      skip_ws();
      if (p_ == end_) return false;
      if (*p_ == ',') {
        ++p_;
        skip_ws();
        continue;
      }
      if (*p_ != '}') return false;
      ++p_;
      break;
    }
    if (has_equal(keys_.data() + first_key, keys_.data() + keys_.size())) return false;
    keys_.resize(first_key);
    h = mix(sum);
    return true;
  }

  // An array whose `[` is behind p_, at `depth`.
  bool array(std::size_t depth, std::uint64_t& h) {
    if (depth >= text_key_max_depth) return false;
    h = key_hash::kArray;
    skip_ws();
    if (p_ < end_ && *p_ == ']') {
      ++p_;
      return true;
    }
    while (true) {
      std::uint64_t vh = 0;
      if (!value(depth, vh)) return false;
      h = combine(h, vh);
      skip_ws();
      if (p_ == end_) return false;
      if (*p_ == ',') {
        ++p_;
        skip_ws();
        continue;
      }
      if (*p_ != ']') return false;
      ++p_;
      return true;
    }
  }

  // The string value `s` (decoded) whose token starts at `token` and ends behind p_: longer than
  // the pruning keeps, it goes to the pruned text cut to its first `keep` code points.
  void prune(const char* token, std::string_view s) {
    std::size_t points = 0, i = 0;
    for (; i < s.size(); ++i) {
      if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && points++ == pruning_->keep) break;
    }
    if (i == s.size()) return;  // short enough: copied with the text around it
    pruning_->out.append(copied_, token);
    append_json_string(pruning_->out, s.substr(0, i));
    copied_ = p_;
  }

  const char* p_;
  const char* end_;
  std::string& scratch_;
  std::vector<std::uint64_t>& keys_;  // t_keys
  Pruning* pruning_;     // notification_text_key_pruned
  const char* copied_;   // the text before this is in pruning_->out
};

}  // namespace

Envelope TextKey::envelope() const {
  Envelope envelope;
  envelope.kind = FrameKind::notification;
  envelope.method = std::string(method);
  return envelope;
}

std::optional<TextKey> notification_text_key(std::string_view text) {
  thread_local std::string scratch;
  std::optional<TextKey> key = notification_text_key(text, scratch);
  release_large(scratch);
  return key;
}

bool text_key_uses_simd() {
  return avx2_scans_enabled();
}

std::optional<TextKey> notification_text_key_scalar(std::string_view text, std::string& scratch) {
  return Scanner<false>(text, scratch).run();
}

std::optional<TextKey> notification_text_key(std::string_view text, std::string& scratch) {
#ifdef MSPTK_TEXT_KEY_AVX2
  if (text_key_uses_simd()) return Scanner<true>(text, scratch).run();
#endif
  return notification_text_key_scalar(text, scratch);
}

std::optional<TextKey> notification_text_key_pruned(std::string_view text, std::size_t keep, std::string& pruned) {
  thread_local std::string scratch;
  pruned.clear();
  Pruning pruning{keep, pruned};
  std::optional<TextKey> key;
#ifdef MSPTK_TEXT_KEY_AVX2
  if (text_key_uses_simd()) key = Scanner<true>(text, scratch, &pruning).run();
  else
#endif
    key = Scanner<false>(text, scratch, &pruning).run();
  release_large(scratch);
  return key;
}

}  // namespace msptk
