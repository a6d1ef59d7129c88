#include "msptk/normalizer/canonical.hpp"

#include <boost/json/serialize.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace msptk {

namespace json = boost::json;

namespace {

// A number as the text of its value: integers in decimal, integral doubles as integers,
// other doubles in the shortest round-trip form.
void append_number(std::string& out, const json::value& v) {
  if (v.is_int64()) {
    fmt::format_to(std::back_inserter(out), "{}", v.get_int64());
  } else if (v.is_uint64()) {
    fmt::format_to(std::back_inserter(out), "{}", v.get_uint64());
  } else {
    double d = v.get_double();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) {
      fmt::format_to(std::back_inserter(out), "{}", static_cast<std::int64_t>(d));
    } else {
      fmt::format_to(std::back_inserter(out), "{}", d);
    }
  }
}

bool numbers_equal(const json::value& a, const json::value& b) {
  if (a.is_double() || b.is_double()) {
    return a.to_number<double>() == b.to_number<double>();
  }
  if (a.is_int64() && b.is_int64()) return a.get_int64() == b.get_int64();
  if (a.is_uint64() && b.is_uint64()) return a.get_uint64() == b.get_uint64();
  const json::value& s = a.is_int64() ? a : b;  // one int64, one uint64
  const json::value& u = a.is_int64() ? b : a;
  return s.get_int64() >= 0 && static_cast<std::uint64_t>(s.get_int64()) == u.get_uint64();
}

bool is_number(const json::value& v) { return v.is_int64() || v.is_uint64() || v.is_double(); }

}  // namespace

void append_canonical_json(std::string& out, const json::value& value) {
  switch (value.kind()) {
    case json::kind::null: out += "null"; break;
    case json::kind::bool_: out += value.get_bool() ? "true" : "false"; break;
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_: append_number(out, value); break;
    case json::kind::string: out += json::serialize(value.get_string()); break;
    case json::kind::array: {
      out += '[';
      bool first = true;
      for (const auto& element : value.get_array()) {
        if (!first) out += ',';
        first = false;
        append_canonical_json(out, element);
      }
      out += ']';
      break;
    }
    case json::kind::object: {
      const json::object& obj = value.get_object();
      std::vector<const json::key_value_pair*> members;
      members.reserve(obj.size());
      for (const auto& m : obj) members.push_back(&m);
      std::sort(members.begin(), members.end(),
                [](const json::key_value_pair* a, const json::key_value_pair* b) { return a->key() < b->key(); });
      out += '{';
      bool first = true;
      for (const auto* m : members) {
        if (!first) out += ',';
        first = false;
        out += json::serialize(m->key());
        out += ':';
        append_canonical_json(out, m->value());
      }
      out += '}';
      break;
    }
  }
}

std::string canonical_json(const json::value& value) {
  std::string out;
  append_canonical_json(out, value);
  return out;
}

bool json_equal(const json::value& a, const json::value& b) {
  if (is_number(a) && is_number(b)) return numbers_equal(a, b);
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case json::kind::null: return true;
    case json::kind::bool_: return a.get_bool() == b.get_bool();
    case json::kind::string: return a.get_string() == b.get_string();
    default: return canonical_json(a) == canonical_json(b);
  }
}

std::string compact_json(const json::value& value) { return json::serialize(value); }

}  // namespace msptk
