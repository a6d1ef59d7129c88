#include "msptk/playback/replay_carry.hpp"
#include "msptk/transcript/json_locate.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/normalizer/canonical.hpp"
#include "msptk/transcript/writer.hpp"


#include <fmt/format.h>

#include <algorithm>

namespace msptk {

namespace json = boost::json;

namespace {

constexpr std::size_t kMaxSpanDepth = 128;

// A scanner over text already known to be valid JSON: it finds where each value starts and
// ends, and names object members by their decoded keys.
class SpanScanner {
 public:
  explicit SpanScanner(std::string_view text) : text_(text) {}

  bool run(std::vector<ValueSpan>& out) {
    skip_ws();
    if (!value(out, "", 0)) return false;
    skip_ws();
    return pos_ == text_.size();
  }

 private:
  void skip_ws() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  // Moves past the container starting at pos_, without recursion.
  bool skip_container() {
    std::size_t open = 0;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '"') {
        if (!skip_string()) return false;
        continue;
      }
      ++pos_;
      if (c == '{' || c == '[') ++open;
      if ((c == '}' || c == ']') && --open == 0) return true;
    }
    return false;
  }

  // Moves past a string token starting at pos_ (a quote).
  bool skip_string() {
    return skip_json_string(text_, pos_);
  }

  bool value(std::vector<ValueSpan>& out, const std::string& location, std::size_t depth) {
    if (pos_ >= text_.size()) return false;
    const std::size_t index = out.size();
    out.push_back(ValueSpan{location, depth, pos_, pos_, false, false});
    const char c = text_[pos_];
    if (c == '{' || c == '[') {
      out[index].is_container = true;
      if (depth >= kMaxSpanDepth) {
        if (!skip_container()) return false;
      } else if (!(c == '{' ? object(out, location, depth) : array(out, location, depth))) {
        return false;
      }
    } else if (c == '"') {
      out[index].is_string = true;
      if (!skip_string()) return false;
    } else {
      while (pos_ < text_.size() && std::string_view(",]} \t\r\n").find(text_[pos_]) == std::string_view::npos) ++pos_;
    }
    out[index].end = pos_;
    return pos_ > out[index].begin;
  }

  bool object(std::vector<ValueSpan>& out, const std::string& location, std::size_t depth) {
    ++pos_;  // '{'
    skip_ws();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return true;
    }
    while (pos_ < text_.size()) {
      skip_ws();
      const std::size_t key_begin = pos_;
      if (!skip_string()) return false;
      auto parsed_key = parse_json(text_.substr(key_begin, pos_ - key_begin));
      if (!parsed_key || !is_json_string(*parsed_key)) return false;
      const json::value& key = *parsed_key;
      skip_ws();
      if (pos_ >= text_.size() || text_[pos_] != ':') return false;
      ++pos_;
      skip_ws();
      if (!value(out, append_member(location, std::string_view(key.get_string())), depth + 1)) return false;
      skip_ws();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
        return true;
      }
      return false;
    }
    return false;
  }

  bool array(std::vector<ValueSpan>& out, const std::string& location, std::size_t depth) {
    ++pos_;  // '['
    skip_ws();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return true;
    }
    for (std::size_t i = 0; pos_ < text_.size(); ++i) {
      skip_ws();
      if (!value(out, append_index(location, i), depth + 1)) return false;
      skip_ws();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
        return true;
      }
      return false;
    }
    return false;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

bool client_minted(std::size_t space) {
  return space == kClientRequestIds || space == kClientCommandIds || space == kClientInfoName ||
         space == kClientInfoVersion;
}

struct Replacement {
  std::size_t begin, end;
  std::string token;
};

}  // namespace

std::vector<ValueSpan> value_spans(std::string_view json_text) {
  std::vector<ValueSpan> spans;
  if (!SpanScanner(json_text).run(spans)) spans.clear();
  return spans;
}

std::string carry_learned_values(const Frame& client_line, const Unifier& learned,
                                 std::vector<CarriedValue>& carried) {
  const std::string& recorded = client_line.wire_bytes();
  if (client_line.exact_bytes || !is_valid_utf8(recorded)) return recorded;
  const std::string_view text = client_line.json_text();
  auto parsed_message = parse_json(text);
  if (!parsed_message) return recorded;
  const json::value& message = *parsed_message;
  const Masker& masker = learned.masker();
  const std::size_t declared_count = masker.spec().declared.size();
  const FrameRole role = FrameRole::of(Direction::client, classify(message));

  // The live partner of `value` in `space`, when it was learned and differs.
  auto partner = [&](std::size_t space, const std::string& value) -> const std::string* {
    const std::string* live = learned.bijection(space).actual_for(value);
    return live && *live != value ? live : nullptr;
  };

  std::vector<Replacement> replacements;
  std::size_t skip_until = 0;  // inside a value already replaced or protected
  for (const ValueSpan& span : value_spans(text)) {
    if (span.begin < skip_until || span.depth == 0) continue;
    const MaskRule rule =
        span.depth <= masker.max_depth() ? masker.rule_for(role, span.location, span.depth) : MaskRule{};
    const bool masked = rule.treatment == Treatment::unify || rule.treatment == Treatment::erase;
    if (rule.treatment == Treatment::ignore || (masked && client_minted(rule.space)) || (rule.is_id && !masked)) {
      skip_until = span.end;  // rule 2: the client's own values (and ids nobody learned)
      continue;
    }
    const bool scalar = !span.is_container;
    if (!scalar && !(masked && rule.declared >= 0)) continue;  // descend into containers
    auto parsed = parse_json(text.substr(span.begin, span.end - span.begin));
    if (!parsed) continue;
    const std::string value = canonical_json(*parsed);
    const std::string* live = nullptr;
    std::size_t from = 0;
    if (rule.is_id) {
      from = kServerRequestIds;  // rule 1: a client's answer to a server request
      live = partner(from, value);
    } else if (masked && rule.declared >= 0) {
      from = masker.declared_space(Direction::server, static_cast<std::size_t>(rule.declared));  // rule 3
      live = partner(from, value);
    }
    if (!live && span.is_string && !rule.is_id) {
      for (std::size_t i = 0; i < declared_count && !live; ++i) {  // rule 4: an echo
        if (masker.spec().declared[i].text() == "id") continue;
        from = masker.declared_space(Direction::server, i);
        if (const std::string* candidate = learned.bijection(from).actual_for(value)) {
          if (*candidate == value) break;  // the first path that learned it kept it: nothing to carry
          live = candidate;
        }
      }
    }
    if (!live) continue;
    replacements.push_back(Replacement{span.begin, span.end, *live});
    carried.push_back(CarriedValue{client_line.line, span.location, value, *live, masker.space_name(from)});
    skip_until = span.end;
  }
  if (replacements.empty()) return recorded;
  std::string out;
  out.reserve(recorded.size() + 64);
  std::size_t at = 0;
  for (const Replacement& r : replacements) {
    out.append(recorded, at, r.begin - at);
    out += r.token;
    at = r.end;
  }
  out.append(recorded, at, std::string::npos);  // the rest, a trailing CR included
  return out;
}

}  // namespace msptk
