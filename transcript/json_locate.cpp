#include "msptk/transcript/json_locate.hpp"

#include <algorithm>

#include <charconv>
#include <string>
#include <vector>

namespace msptk {

namespace {

struct Component {
  bool is_index = false;
  std::string name;
  std::size_t index = 0;
};

std::vector<Component> split_path(std::string_view path) {
  std::vector<Component> out;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      std::size_t close = path.find(']', i);
      if (close == std::string_view::npos) break;
      Component c;
      c.is_index = true;
      std::from_chars(path.data() + i + 1, path.data() + close, c.index);
      out.push_back(std::move(c));
      i = close + 1;
      continue;
    }
    std::size_t end = path.find_first_of(".[", i);
    if (end == std::string_view::npos) end = path.size();
    out.push_back(Component{false, std::string(path.substr(i, end - i)), 0});
    i = end;
  }
  return out;
}

class Scanner {
 public:
  Scanner(std::string_view text, std::vector<Component> target) : text_(text), target_(std::move(target)) {}

  std::size_t run() {
    skip_ws();
    best_line_ = line_;
    value(true, 0);
    return best_line_;
  }

 private:
  void skip_ws() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\r' || text_[pos_] == '\n')) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
  }

  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }

  std::string_view string() {
    const std::size_t start = ++pos_;  // after the opening quote
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\') ++pos_;
      else if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    std::string_view s = text_.substr(start, std::min(pos_, text_.size()) - start);
    if (pos_ < text_.size()) ++pos_;  // the closing quote
    return s;
  }

  void record(std::size_t depth) {
    if (depth > best_depth_) {
      best_depth_ = depth;
      best_line_ = line_;
    }
  }

  // Skips one value that is off the path without recursing: a string is read whole, a scalar
  // up to its delimiter, a container by counting brackets (the text need not be well-formed).
  void skip_value() {
    skip_ws();
    if (pos_ >= text_.size()) return;
    if (at('"')) {
      string();
      return;
    }
    if (!at('{') && !at('[')) {
      while (pos_ < text_.size() && std::string_view(",}] \t\r\n").find(text_[pos_]) == std::string_view::npos) ++pos_;
      return;
    }
    std::size_t open = 0;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '"') {
        string();
        continue;
      }
      if (c == '\n') {
        ++line_;
      } else if (c == '{' || c == '[') {
        ++open;
      } else if (c == '}' || c == ']') {
        if (--open == 0) {
          ++pos_;
          return;
        }
      }
      ++pos_;
    }
  }

  void value(bool on_track, std::size_t depth) {
    skip_ws();
    if (pos_ >= text_.size()) return;
    if (!on_track) {
      skip_value();
      return;
    }
    if (at('{')) {
      ++pos_;
      while (true) {
        skip_ws();
        if (!at('"')) break;  // '}' or not JSON: stop this object
        const std::size_t key_line = line_;
        const std::string_view key = string();
        skip_ws();
        if (!at(':')) return;
        ++pos_;
        const bool child = on_track && depth < target_.size() && !target_[depth].is_index && target_[depth].name == key;
        if (child && depth + 1 > best_depth_) {
          best_depth_ = depth + 1;
          best_line_ = key_line;
        }
        value(child, depth + 1);
        skip_ws();
        if (!at(',')) break;
        ++pos_;
      }
      if (at('}')) ++pos_;
    } else if (at('[')) {
      ++pos_;
      for (std::size_t i = 0;; ++i) {
        skip_ws();
        if (at(']') || pos_ >= text_.size()) break;
        const bool child = on_track && depth < target_.size() && target_[depth].is_index && target_[depth].index == i;
        if (child) record(depth + 1);
        value(child, depth + 1);
        skip_ws();
        if (!at(',')) break;
        ++pos_;
      }
      if (at(']')) ++pos_;
    } else if (at('"')) {
      string();
    } else {
      while (pos_ < text_.size() && std::string_view(",}] \t\r\n").find(text_[pos_]) == std::string_view::npos) ++pos_;
    }
  }

  std::string_view text_;
  std::vector<Component> target_;
  std::size_t pos_ = 0, line_ = 1;
  std::size_t best_depth_ = 0, best_line_ = 1;
};

}  // namespace

std::size_t line_of_path(std::string_view text, std::string_view path) {
  return Scanner(text, split_path(path)).run();
}

std::size_t json_string_end(std::string_view text, std::size_t quote) {
  if (quote >= text.size() || text[quote] != '"') return std::string_view::npos;
  std::size_t pos = quote + 1;
  while (pos < text.size()) {
    pos = text.find_first_of("\"\\", pos);
    if (pos == std::string_view::npos) return pos;
    if (text[pos] == '"') return pos + 1;
    pos += 2;  // a backslash and the character it escapes
  }
  return std::string_view::npos;
}

}  // namespace msptk
