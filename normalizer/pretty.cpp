#include "msptk/normalizer/pretty.hpp"
#include "msptk/transcript/json_locate.hpp"

#include "msptk/normalizer/path.hpp"
#include "msptk/transcript/json_parse.hpp"

namespace msptk {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

struct Container {
  bool object = false;
  std::string location;
  std::size_t count = 0;  // members or elements so far
};

using LineSink = std::function<void(std::size_t, std::string_view)>;

class Layout {
 public:
  // Keeps every line with its location (pretty_lines).
  Layout(std::string_view text, std::size_t max_lines) : text_(text), max_lines_(max_lines) {}
  // Keeps nothing, builds no location: each line goes to `sink` (none: the text is only checked),
  // a text deeper than `max_depth` fails.
  Layout(std::string_view text, std::size_t max_depth, const LineSink* sink)
      : text_(text), max_lines_(std::numeric_limits<std::size_t>::max()), max_depth_(max_depth), locations_(false),
        sink_(sink) {}

  std::optional<PrettyJson> run() {
    skip_space();
    if (!value("")) return std::nullopt;
    // Values are laid out by an explicit stack (no recursion): value() only opens containers.
    while (!stack_.empty()) {
      if (out_.truncated) return std::move(out_);
      skip_space();
      if (pos_ >= text_.size()) return std::nullopt;
      Container& top = stack_.back();
      const char close = top.object ? '}' : ']';
      if (text_[pos_] == close) {
        ++pos_;
        std::string location = std::move(top.location);
        stack_.pop_back();
        add(close, std::move(location));
        continue;
      }
      if (top.count > 0) {
        if (text_[pos_] != ',') return std::nullopt;
        ++pos_;
        last_line() += ',';
        skip_space();
      }
      std::string prefix, location;
      if (top.object) {
        const std::size_t start = pos_;
        if (!string_token()) return std::nullopt;
        const std::string_view key = text_.substr(start, pos_ - start);
        if (locations_) {
          location = top.location;
          push_member(location, decoded(key));
        }
        skip_space();
        if (pos_ >= text_.size() || text_[pos_] != ':') return std::nullopt;
        ++pos_;
        skip_space();
        prefix.assign(key);
        prefix += ": ";
      } else if (locations_) {
        location = top.location + "[" + std::to_string(top.count) + "]";
      }
      ++top.count;
      if (!value(std::move(location), std::move(prefix))) return std::nullopt;
    }
    if (out_.truncated) return std::move(out_);
    skip_space();
    if (pos_ != text_.size()) return std::nullopt;
    flush_pending();
    return std::move(out_);
  }

 private:
  // Lays out the value at pos_: a scalar (one line) or a container's opening line.
  bool value(std::string location, std::string prefix = {}) {
    if (pos_ >= text_.size()) return false;
    const char c = text_[pos_];
    if (c == '{' || c == '[') {
      if (stack_.size() >= max_depth_) return false;
      const char close = c == '{' ? '}' : ']';
      ++pos_;
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == close) {
        ++pos_;
        line(prefix + c + close, std::move(location));
        return true;
      }
      line(prefix + c, location);
      stack_.push_back(Container{c == '{', std::move(location), 0});
      return true;
    }
    const std::size_t start = pos_;
    if (c == '"') {
      if (!string_token()) return false;
    } else {
      while (pos_ < text_.size() && !is_space(text_[pos_]) && text_[pos_] != ',' && text_[pos_] != ']' &&
             text_[pos_] != '}' && text_[pos_] != ':' && text_[pos_] != '"' && text_[pos_] != '{' && text_[pos_] != '[')
        ++pos_;
      if (pos_ == start) return false;
    }
    prefix.append(text_.substr(start, pos_ - start));
    line(std::move(prefix), std::move(location));
    return true;
  }

  bool string_token() {
    return skip_json_string(text_, pos_);
  }

  // A member name's text (a string token with its quotes), decoded.
  static std::string decoded(std::string_view token) {
    if (token.find('\\') == std::string_view::npos) return std::string(token.substr(1, token.size() - 2));
    auto value = parse_json(token);
    if (value && value->is_string()) return std::string(value->get_string());
    return std::string(token.substr(1, token.size() - 2));
  }

  void add(char close, std::string location) { line(std::string(1, close), std::move(location), stack_.size()); }
  void line(std::string text, std::string location) { line(std::move(text), std::move(location), stack_.size()); }
  void line(std::string text, std::string location, std::size_t depth) {
    if (!locations_) {  // held until the next line: a ',' may still be added to it
      flush_pending();
      pending_depth_ = depth;
      pending_ = std::move(text);
      has_pending_ = true;
      return;
    }
    if (out_.lines.size() >= max_lines_) {
      out_.truncated = true;
      return;
    }
    out_.lines.push_back(PrettyLine{depth, std::move(text), std::move(location)});
  }

  std::string& last_line() { return locations_ ? out_.lines.back().text : pending_; }

  void flush_pending() {
    if (has_pending_ && sink_ && *sink_) (*sink_)(pending_depth_, pending_);
    has_pending_ = false;
  }

  void skip_space() {
    while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  }

  std::string_view text_;
  std::size_t max_lines_;
  std::size_t max_depth_ = std::numeric_limits<std::size_t>::max();
  bool locations_ = true;
  const LineSink* sink_ = nullptr;
  std::string pending_;  // without locations: the last line, not yet passed on
  std::size_t pending_depth_ = 0;
  bool has_pending_ = false;
  std::size_t pos_ = 0;
  std::vector<Container> stack_;
  PrettyJson out_;
};

}  // namespace

std::optional<PrettyJson> pretty_lines(std::string_view text, std::size_t max_lines) {
  return Layout(text, max_lines).run();
}

bool for_each_pretty_line(std::string_view text, std::size_t max_depth, const LineSink& line) {
  if (!Layout(text, max_depth, nullptr).run()) return false;  // checked first: no line before a failure
  return Layout(text, max_depth, &line).run().has_value();
}

std::string pretty_json(std::string_view text) {
  auto laid = pretty_lines(text);
  std::string out;
  if (!laid) {
    out.assign(text);
    out += '\n';
    return out;
  }
  for (const PrettyLine& l : laid->lines) {
    out.append(2 * l.depth, ' ');
    out += l.text;
    out += '\n';
  }
  return out;
}

bool location_within(std::string_view location, std::string_view place) {
  if (place.empty()) return true;
  if (location.size() < place.size() || location.substr(0, place.size()) != place) return false;
  return location.size() == place.size() || location[place.size()] == '.' || location[place.size()] == '[';
}

}  // namespace msptk
