#include "instance.hpp"

#include "msptk/transcript/json_parse.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <vector>

namespace msptk::schema::detail {

namespace json = boost::json;

namespace {

bool needs_surrogate(const json::value& v) {
  if (v.is_uint64() || is_exact_number(v)) return true;
  if (v.is_double()) {
    const double d = v.get_double();
    return std::isfinite(d) && d == std::floor(d);
  }
  return false;
}

json::value replace_number(const json::value& v) {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  constexpr auto min = std::numeric_limits<std::int64_t>::min();
  if (v.is_uint64()) return json::value(max);
  if (v.is_double()) {
    const double d = v.get_double();
    if (d >= -9.2e18 && d <= 9.2e18) return json::value(static_cast<std::int64_t>(d));
    return json::value(d < 0 ? min : max);
  }
  // An exact number: its token after the marker byte.
  const json::string& s = v.get_string();
  const std::string token(s.data() + 1, s.size() - 1);
  const bool negative = !token.empty() && token[0] == '-';
  const bool has_fraction_or_exponent = token.find_first_of(".eE") != std::string::npos;
  const double d = std::strtod(token.c_str(), nullptr);
  if (!has_fraction_or_exponent || (std::isinf(d))) return json::value(negative ? min : max);
  if (d == 0.0) return json::value(negative ? -std::numeric_limits<double>::denorm_min()
                                            : std::numeric_limits<double>::denorm_min());
  return json::value(d);
}

}  // namespace

bool is_exact_number(const json::value& v) { return msptk::is_exact_number(v); }
bool is_number(const json::value& v) { return msptk::is_json_number(v); }
bool is_string(const json::value& v) { return msptk::is_json_string(v); }

std::string_view type_name(const json::value& v) {
  switch (v.kind()) {
    case json::kind::object: return "object";
    case json::kind::array: return "array";
    case json::kind::bool_: return "boolean";
    case json::kind::null: return "null";
    case json::kind::int64:
    case json::kind::uint64: return "integer";
    case json::kind::double_: return "number";
    case json::kind::string: return is_exact_number(v) ? "number" : "string";
  }
  return "value";
}

std::string json_text(const json::value& v, std::size_t limit) {
  std::string text = msptk::serialize_json(v);
  if (text.size() > limit) {
    std::size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 boundary
    text = text.substr(0, cut) + "…";
  }
  return text;
}

std::optional<json::value> surrogate(const json::value& instance) {
  // Look first (no allocation): most instances need no copy.
  thread_local std::vector<const json::value*> stack;
  stack.clear();
  stack.push_back(&instance);
  bool needed = false;
  while (!stack.empty() && !needed) {
    const json::value* v = stack.back();
    stack.pop_back();
    if (const json::object* o = v->if_object()) {
      for (const auto& m : *o) stack.push_back(&m.value());
    } else if (const json::array* a = v->if_array()) {
      for (const json::value& e : *a) stack.push_back(&e);
    } else {
      needed = needs_surrogate(*v);
    }
  }
  if (!needed) return std::nullopt;
  json::value copy = instance;
  std::vector<json::value*> todo{&copy};
  while (!todo.empty()) {
    json::value* v = todo.back();
    todo.pop_back();
    if (json::object* o = v->if_object()) {
      for (auto& m : *o) todo.push_back(&m.value());
    } else if (json::array* a = v->if_array()) {
      for (json::value& e : *a) todo.push_back(&e);
    } else if (needs_surrogate(*v)) {
      *v = replace_number(*v);
    }
  }
  return copy;
}

}  // namespace msptk::schema::detail
