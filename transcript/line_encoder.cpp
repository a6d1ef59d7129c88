#include "msptk/transcript/line_encoder.hpp"
#include "msptk/transcript/utf8.hpp"

#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/writer.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace msptk {

void LineBuffer::release() {
  data_.reset();
  size_ = capacity_ = 0;
}

char* LineBuffer::room(std::size_t n) {
  if (capacity_ - size_ < n) {
    const std::size_t want = std::max(size_ + n, capacity_ * 2);
    auto grown = std::make_unique_for_overwrite<char[]>(want);
    if (size_) std::memcpy(grown.get(), data_.get(), size_);
    data_ = std::move(grown);
    capacity_ = want;
  }
  return data_.get() + size_;
}

void LineBuffer::append(std::string_view bytes) {
  char* at = room(bytes.size());
  if (!bytes.empty()) std::memcpy(at, bytes.data(), bytes.size());
  size_ += bytes.size();
}

namespace {

constexpr char kHex[] = "0123456789abcdef";

// For each byte: 0 when it is copied as it is, else the letter after the backslash of its
// escape ('u' for \u00xx).
constexpr std::array<char, 256> kEscape = [] {
  std::array<char, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[static_cast<std::size_t>(c)] = 'u';
  t['"'] = '"';
  t['\\'] = '\\';
  t['\b'] = 'b';
  t['\f'] = 'f';
  t['\n'] = 'n';
  t['\r'] = 'r';
  t['\t'] = 't';
  return t;
}();

// The input is escaped in blocks of this many bytes, each with room for its worst case (6
// output bytes per input byte) plus slack for a sequence running past the block's end and a
// 16-byte store past the last byte written.
constexpr std::size_t kBlock = 16 * 1024;
constexpr std::size_t kSlack = 64;

// Writes the byte or UTF-8 sequence at s[i] (i < n) to *o and advances both; false when it is
// not UTF-8.
inline bool encode_one(const unsigned char* s, std::size_t n, std::size_t& i, char*& o) {
  const unsigned char c = s[i];
  if (c < 0x80) {
    const char e = kEscape[c];
    if (!e) {
      *o++ = static_cast<char>(c);
    } else {
      *o++ = '\\';
      *o++ = e;
      if (e == 'u') {
        *o++ = '0';
        *o++ = '0';
        *o++ = kHex[c >> 4];
        *o++ = kHex[c & 0xF];
      }
    }
    ++i;
    return true;
  }
  const std::size_t len = utf8_sequence_length(s + i, n - i);
  if (!len) return false;
  std::memcpy(o, s + i, len);
  o += len;
  i += len;
  return true;
}

template <bool kVector>
bool escape(LineBuffer& out, std::string_view bytes) {
  const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t n = bytes.size();
  std::size_t i = 0;
  while (i < n) {
    const std::size_t end = std::min(n, i + kBlock);
    char* o = out.room((end - i) * 6 + kSlack);
    while (i < end) {
#if defined(__SSE2__)
      if constexpr (kVector) {
        if (i + 16 <= n) {
          // Copy 16 bytes, then keep those before the first that needs a look: `"`, `\`, a
          // control byte (<= 0x1F) or a byte of a multibyte sequence (>= 0x80).
          const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
          _mm_storeu_si128(reinterpret_cast<__m128i*>(o), v);
          const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
          const __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
          const __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0x1F)), _mm_set1_epi8(0x1F));
          const unsigned mask =
              static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control))) |
              static_cast<unsigned>(_mm_movemask_epi8(v));
          if (mask == 0) {
            i += 16;
            o += 16;
            continue;
          }
          const unsigned k = static_cast<unsigned>(__builtin_ctz(mask));
          i += k;
          o += k;
        }
      }
#endif
      if (!encode_one(s, n, i, o)) {
        out.commit(o);
        return false;
      }
    }
    out.commit(o);
  }
  return true;
}


}  // namespace

bool append_escaped_utf8(LineBuffer& out, std::string_view bytes) { return escape<true>(out, bytes); }

bool append_escaped_utf8_scalar(LineBuffer& out, std::string_view bytes) { return escape<false>(out, bytes); }

bool append_canonical_line(LineBuffer& out, Direction dir, std::string_view bytes) {
  const std::size_t start = out.size();
  out.append(dir == Direction::client ? kCanonicalClientHead : kCanonicalServerHead);
  if (append_escaped_utf8(out, bytes)) {
    out.append("\"}\n");
    return true;
  }
  // Not UTF-8: the general path (rare).
  out.truncate(start);
  std::string line(dir == Direction::client ? kCanonicalClientHead : kCanonicalServerHead);
  append_json_escaped(line, lossy_utf8(bytes));
  line += R"(","rawBase64":")";
  line += base64_encode(bytes);
  line += "\"}\n";
  out.append(line);
  return false;
}

}  // namespace msptk
