#include "msptk/show/prune.hpp"

#include "msptk/transcript/json_locate.hpp"

#include <string>
#include <vector>

namespace msptk::show {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool is_high_surrogate_escape(std::string_view unit) {
  if (unit.size() != 6 || unit[1] != 'u') return false;
  const char a = unit[2], b = unit[3];
  return (a == 'd' || a == 'D') && ((b >= '8' && b <= '9') || (b >= 'a' && b <= 'b') || (b >= 'A' && b <= 'B'));
}

// A string token (with its quotes) cut to `keep` characters.
void append_cut_string(std::string_view token, std::size_t keep, std::string& out) {
  std::size_t pos = 1, units = 0, last_start = 1;
  const std::size_t end = token.size() - 1;  // the closing quote
  while (pos < end && units < keep) {
    last_start = pos;
    if (token[pos] == '\\') {
      pos += token[pos + 1] == 'u' ? 6 : 2;
    } else {
      ++pos;
      while (pos < end && (static_cast<unsigned char>(token[pos]) & 0xC0) == 0x80) ++pos;
    }
    ++units;
  }
  if (pos >= end) {
    out.append(token);
    return;
  }
  if (is_high_surrogate_escape(token.substr(last_start, pos - last_start))) pos = last_start;
  out.append(token.substr(0, pos));
  out += '"';
}

// Past the container whose opening bracket is behind `pos` (its closing bracket not consumed).
void skip_to_close(std::string_view text, std::size_t& pos) {
  std::size_t depth = 0;
  while (pos < text.size()) {
    const char c = text[pos];
    if (c == '"') {
      skip_json_string(text, pos);
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') {
      if (depth == 0) return;
      --depth;
    }
    ++pos;
  }
}

struct Level {
  char close;
  bool exempt;  // every child kept, no budget spent
  bool first = true;
};

}  // namespace

void prune_for_summary(std::string_view text, std::string& out) {
  out.clear();
  std::vector<Level> stack;
  std::size_t budget = kPruneBudget;
  std::size_t pos = 0;
  auto skip_space = [&] {
    while (pos < text.size() && is_space(text[pos])) ++pos;
  };
  // The value at pos: a scalar is written (cut when `whole` is false), a container opened.
  auto value = [&](bool whole, bool exempt_container) {
    skip_space();
    if (pos >= text.size()) return;
    const char c = text[pos];
    if (c == '{' || c == '[') {
      out += c;
      ++pos;
      stack.push_back(Level{c == '{' ? '}' : ']', exempt_container && c == '{'});
      return;
    }
    const std::size_t start = pos;
    if (c == '"') {
      skip_json_string(text, pos);
      if (whole) out.append(text.substr(start, pos - start));
      else append_cut_string(text.substr(start, pos - start), kPruneStringUnits, out);
      return;
    }
    while (pos < text.size() && !is_space(text[pos]) && text[pos] != ',' && text[pos] != ']' && text[pos] != '}') ++pos;
    out.append(text.substr(start, pos - start));
  };
  value(true, true);
  while (!stack.empty()) {
    skip_space();
    if (pos >= text.size()) return;  // not valid JSON: never for a checked text
    Level& top = stack.back();
    if (text[pos] == ',') {
      ++pos;
      skip_space();
    }
    if (text[pos] == top.close) {
      out += top.close;
      ++pos;
      stack.pop_back();
      continue;
    }
    if (!top.exempt && budget == 0) {
      skip_to_close(text, pos);
      continue;
    }
    if (!top.first) out += ',';
    top.first = false;
    if (!top.exempt) --budget;
    const bool top_level = stack.size() == 1;
    const bool whole = top.exempt;
    bool error_member = false;
    if (top.close == '}') {
      const std::size_t start = pos;
      skip_json_string(text, pos);
      const std::string_view key = text.substr(start, pos - start);
      out.append(key);
      skip_space();
      ++pos;  // ':'
      out += ':';
      error_member = top_level && key == "\"error\"";
    }
    value(whole, error_member);
  }
}

}  // namespace msptk::show
