#include "msptk/normalizer/path.hpp"

#include "msptk/transcript/json_parse.hpp"

#include <fmt/format.h>

namespace msptk {

namespace json = boost::json;

namespace {

Error path_error(std::string_view text, std::size_t pos, std::string_view what) {
  return Error::malformed({}, 0, "path.syntax", fmt::format("bad path \"{}\" at position {}: {}", text, pos + 1, what));
}

template <class Value, class Visit>
void walk(Value& value, const std::vector<JsonPath::Step>& steps, std::size_t i, const std::string& location,
          const Visit& visit) {
  if (i == steps.size()) {
    visit(value, location);
    return;
  }
  const JsonPath::Step& step = steps[i];
  switch (step.kind) {
    case JsonPath::Step::Kind::member:
      if (auto* obj = value.if_object()) {
        if (auto* child = obj->if_contains(step.name)) walk(*child, steps, i + 1, append_member(location, step.name), visit);
      }
      break;
    case JsonPath::Step::Kind::any_member:
      if (auto* obj = value.if_object()) {
        for (auto& member : *obj) walk(member.value(), steps, i + 1, append_member(location, member.key()), visit);
      }
      break;
    case JsonPath::Step::Kind::each_element:
      if (auto* arr = value.if_array()) {
        for (std::size_t k = 0; k < arr->size(); ++k) walk((*arr)[k], steps, i + 1, append_index(location, k), visit);
      }
      break;
  }
}

}  // namespace

namespace {

// A name the path grammar's `name` rule can spell is written plain in a location.
bool plain_name(std::string_view name) { return !name.empty() && name.find_first_of(".[]*") == std::string_view::npos; }

// Reads the member step at `pos` of a location (after its '.', if any): a plain name up to the
// next '.' or '[', or a bracketed JSON string (decoded into `decoded`). Advances `pos`; false
// when there is none. `name` views the location or `decoded`.
bool read_member(std::string_view location, std::size_t& pos, bool first, std::string_view& name,
                 std::string& decoded) {
  if (pos + 1 < location.size() && location[pos] == '[' && location[pos + 1] == '"') {
    std::size_t end = pos + 2;
    while (end < location.size() && location[end] != '"') end += location[end] == '\\' ? 2 : 1;
    if (end + 1 >= location.size() || location[end + 1] != ']') return false;
    auto value = parse_json(location.substr(pos + 1, end - pos));
    if (!value || !is_json_string(*value)) return false;
    decoded.assign(value->get_string().data(), value->get_string().size());
    name = decoded;
    pos = end + 2;
    return true;
  }
  if (!first) {
    if (pos >= location.size() || location[pos] != '.') return false;
    ++pos;
  }
  std::size_t end = pos;
  while (end < location.size() && location[end] != '.' && location[end] != '[') ++end;
  if (end == pos) return false;
  name = location.substr(pos, end - pos);
  pos = end;
  return true;
}

}  // namespace

void push_member(std::string& location, std::string_view name) {
  if (!plain_name(name)) {
    location += '[';
    append_json_string(location, name);
    location += ']';
    return;
  }
  if (!location.empty()) location += '.';
  location.append(name.data(), name.size());
}

std::string append_member(const std::string& location, std::string_view name) {
  std::string out = location;
  push_member(out, name);
  return out;
}

std::string append_index(const std::string& location, std::size_t index) {
  return fmt::format("{}[{}]", location, index);
}

Result<JsonPath> JsonPath::parse(std::string_view text) {
  JsonPath path;
  path.text_ = std::string(text);
  if (text.empty()) return path_error(text, 0, "empty path");
  std::size_t i = 0;
  while (true) {
    if (i >= text.size()) return path_error(text, i, "expected a member name or '*'");
    if (text[i] == '*') {
      path.steps_.push_back({Step::Kind::any_member, {}});
      ++i;
    } else {
      std::size_t start = i;
      while (i < text.size() && text[i] != '.' && text[i] != '[' && text[i] != ']' && text[i] != '*') ++i;
      if (i == start) return path_error(text, i, fmt::format("unexpected '{}'", text[i]));
      path.steps_.push_back({Step::Kind::member, std::string(text.substr(start, i - start))});
    }
    while (i < text.size() && text[i] == '[') {
      if (i + 1 >= text.size() || text[i + 1] != ']') return path_error(text, i + 1, "'[' must be followed by ']'");
      path.steps_.push_back({Step::Kind::each_element, {}});
      i += 2;
    }
    if (i == text.size()) break;
    if (text[i] != '.') return path_error(text, i, fmt::format("unexpected '{}'", text[i]));
    ++i;
  }
  return path;
}

void JsonPath::for_each_match(const json::value& root,
                              const std::function<void(const json::value&, const std::string&)>& visit) const {
  walk(root, steps_, 0, std::string(), visit);
}

void JsonPath::for_each_match(json::value& root,
                              const std::function<void(json::value&, const std::string&)>& visit) const {
  walk(root, steps_, 0, std::string(), visit);
}

bool JsonPath::matches_location(std::string_view location) const {
  std::size_t pos = 0;
  std::string decoded;
  for (std::size_t s = 0; s < steps_.size(); ++s) {
    const Step& step = steps_[s];
    if (step.kind == Step::Kind::each_element) {
      if (pos >= location.size() || location[pos] != '[') return false;
      std::size_t close = location.find(']', pos);
      if (close == std::string_view::npos || close == pos + 1) return false;
      for (std::size_t k = pos + 1; k < close; ++k)
        if (location[k] < '0' || location[k] > '9') return false;
      pos = close + 1;
      continue;
    }
    std::string_view name;
    if (!read_member(location, pos, s == 0, name, decoded)) return false;
    if (step.kind == Step::Kind::member && name != step.name) return false;
  }
  return pos == location.size();
}

}  // namespace msptk
