#include "msptk/transcript/display.hpp"

#include <fmt/format.h>

namespace msptk {

namespace {

// The length of the well-formed UTF-8 sequence at s[i] (s[i] >= 0x80), 0 when there is none.
std::size_t utf8_length(std::string_view s, std::size_t i, unsigned& cp) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t len;
  unsigned min;
  if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1Fu; min = 0x80; }
  else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0Fu; min = 0x800; }
  else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07u; min = 0x10000; }
  else return 0;
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

}  // namespace

std::string display_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    switch (c) {
      case '\n': out += "\\n"; ++i; continue;
      case '\r': out += "\\r"; ++i; continue;
      case '\t': out += "\\t"; ++i; continue;
      default: break;
    }
    if (c < 0x80) {  // other C0 controls and DEL
      fmt::format_to(std::back_inserter(out), "\\x{:02x}", c);
      ++i;
      continue;
    }
    unsigned cp = 0;
    const std::size_t len = utf8_length(text, i, cp);
    if (len == 0) {
      fmt::format_to(std::back_inserter(out), "\\x{:02x}", c);
      ++i;
    } else if (cp >= 0x80 && cp <= 0x9F) {
      fmt::format_to(std::back_inserter(out), "\\u{:04x}", cp);
      i += len;
    } else {
      out.append(text.data() + i, len);
      i += len;
    }
  }
  return out;
}

long first_control_character(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7F) return c;
    if (c == 0xC2 && i + 1 < text.size()) {
      const auto next = static_cast<unsigned char>(text[i + 1]);
      if (next >= 0x80 && next <= 0x9F) return next;  // U+0080..U+009F
    }
  }
  return -1;
}

}  // namespace msptk
