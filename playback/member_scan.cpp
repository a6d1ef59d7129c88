#include "msptk/playback/member_scan.hpp"
#include "msptk/transcript/json_locate.hpp"
#include "msptk/transcript/json_parse.hpp"


namespace msptk::playback {

namespace {

constexpr std::size_t npos = std::string_view::npos;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::size_t skip_space(std::string_view text, std::size_t pos) {
  while (pos < text.size() && is_space(text[pos])) ++pos;
  return pos;
}

enum class Step { done, cut, bad };

// Finds the end of the value token starting at `pos`; `end` is set when done.
Step value_end(std::string_view text, std::size_t pos, std::size_t& end) {
  const char c = text[pos];
  if (c == '"') {
    end = json_string_end(text, pos);
    return end == npos ? Step::cut : Step::done;
  }
  if (c == '{' || c == '[') {
    int depth = 0;
    for (std::size_t i = pos; i < text.size(); ++i) {
      const char d = text[i];
      if (d == '"') {
        i = json_string_end(text, i);
        if (i == npos) return Step::cut;
        --i;
      } else if (d == '{' || d == '[') {
        ++depth;
      } else if (d == '}' || d == ']') {
        if (--depth == 0) {
          end = i + 1;
          return Step::done;
        }
      }
    }
    return Step::cut;
  }
  const bool number = c == '-' || (c >= '0' && c <= '9');
  const bool literal = c == 't' || c == 'f' || c == 'n';
  if (!number && !literal) return Step::bad;
  std::size_t i = pos;
  while (i < text.size()) {
    const char d = text[i];
    const bool part = number ? ((d >= '0' && d <= '9') || d == '-' || d == '+' || d == '.' || d == 'e' || d == 'E')
                             : (d >= 'a' && d <= 'z');
    if (!part) break;
    ++i;
  }
  // A number or literal that reaches the end of the text may go on beyond it.
  if (i == text.size()) return Step::cut;
  end = i;
  return Step::done;
}

std::optional<std::string> decode_name(std::string_view token) {
  if (token.find('\\') == npos) return std::string(token.substr(1, token.size() - 2));
  auto v = parse_json(token);
  if (!v || !is_json_string(*v)) return std::nullopt;
  return std::string(v->get_string());
}

}  // namespace

const MemberToken* MemberScan::find(std::string_view name) const {
  for (auto it = members.rbegin(); it != members.rend(); ++it)
    if (it->name == name) return &*it;
  return nullptr;
}

std::optional<std::string_view> MemberScan::token(std::string_view text, std::string_view name) const {
  const MemberToken* m = find(name);
  if (!m) return std::nullopt;
  return text.substr(m->value_begin, m->value_end - m->value_begin);
}

MemberScan scan_members(std::string_view text) {
  MemberScan scan;
  std::size_t pos = skip_space(text, 0);
  if (pos >= text.size()) return scan;
  if (text[pos] != '{') {
    scan.malformed = true;
    return scan;
  }
  scan.object = true;
  ++pos;
  bool first = true;
  while (true) {
    pos = skip_space(text, pos);
    if (pos >= text.size()) return scan;  // cut between members
    if (text[pos] == '}' && first) {
      scan.closed = true;
      return scan;
    }
    if (text[pos] != '"') {
      scan.malformed = true;
      return scan;
    }
    const std::size_t name_end = json_string_end(text, pos);
    if (name_end == npos) {
      scan.cut_member = "";
      return scan;
    }
    std::optional<std::string> name = decode_name(text.substr(pos, name_end - pos));
    if (!name) {
      scan.malformed = true;
      return scan;
    }
    pos = skip_space(text, name_end);
    if (pos < text.size() && text[pos] != ':') {
      scan.malformed = true;
      return scan;
    }
    pos = skip_space(text, pos + 1);
    if (pos >= text.size()) {
      scan.cut_member = std::move(*name);
      return scan;
    }
    std::size_t end = 0;
    switch (value_end(text, pos, end)) {
      case Step::bad: scan.malformed = true; return scan;
      case Step::cut: scan.cut_member = std::move(*name); return scan;
      case Step::done: break;
    }
    scan.members.push_back(MemberToken{std::move(*name), pos, end});
    first = false;
    pos = skip_space(text, end);
    if (pos >= text.size()) return scan;
    if (text[pos] == '}') {
      scan.closed = true;
      return scan;
    }
    if (text[pos] != ',') {
      scan.malformed = true;
      return scan;
    }
    ++pos;
  }
}

std::optional<std::string> splice_member(std::string_view text, std::string_view name, std::string_view token) {
  const MemberScan scan = scan_members(text);
  const MemberToken* m = scan.find(name);
  if (!m) return std::nullopt;
  std::string out;
  out.reserve(text.size() - (m->value_end - m->value_begin) + token.size());
  out.append(text.substr(0, m->value_begin));
  out.append(token);
  out.append(text.substr(m->value_end));
  return out;
}

std::optional<std::string> set_member(std::string_view text, std::string_view name, std::string_view token) {
  const MemberScan scan = scan_members(text);
  if (scan.find(name)) return splice_member(text, name, token);
  if (!scan.object || !scan.closed || scan.malformed || scan.members.empty()) return std::nullopt;
  const std::size_t at = scan.members.back().value_end;
  std::string quoted;
  append_json_escaped(quoted, name);
  std::string out;
  out.reserve(text.size() + quoted.size() + token.size() + 8);
  out.append(text.substr(0, at));
  out.append(",\n  \"").append(quoted).append("\": ").append(token);
  out.append(text.substr(at));
  return out;
}

}  // namespace msptk::playback
