#include "msptk/normalizer/canonical.hpp"

#include "msptk/transcript/json_parse.hpp"

#include <boost/json/serialize.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace msptk {

namespace json = boost::json;

namespace {

void append_number(std::string& out, const json::value& v) {
  if (v.is_int64()) {
    fmt::format_to(std::back_inserter(out), "{}", v.get_int64());
  } else if (v.is_uint64()) {
    fmt::format_to(std::back_inserter(out), "{}", v.get_uint64());
  } else {
    out += canonical_number_text(v);
  }
}

void append_scalar(std::string& out, const json::value& value) {
  switch (value.kind()) {
    case json::kind::null: out += "null"; break;
    case json::kind::bool_: out += value.get_bool() ? "true" : "false"; break;
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_: append_number(out, value); break;
    case json::kind::string:
      if (is_exact_number(value)) {
        append_number(out, value);
      } else {
        append_json_string(out, std::string_view(value.get_string().data(), value.get_string().size()));
      }
      break;
    default: break;
  }
}

}  // namespace

// Not recursive: an explicit stack of open containers, objects with their members sorted.
void append_canonical_json(std::string& out, const json::value& root) {
  struct Open {
    const json::value* v;
    std::size_t next = 0;
    std::vector<const json::key_value_pair*> members;  // objects: sorted by name
  };
  auto open = [&](const json::value* v) {
    Open o{v, 0, {}};
    if (const json::object* obj = v->if_object()) {
      o.members.reserve(obj->size());
      for (const auto& m : *obj) o.members.push_back(&m);
      std::sort(o.members.begin(), o.members.end(),
                [](const json::key_value_pair* a, const json::key_value_pair* b) { return a->key() < b->key(); });
      out += '{';
    } else {
      out += '[';
    }
    return o;
  };
  if (!root.is_array() && !root.is_object()) {
    append_scalar(out, root);
    return;
  }
  std::vector<Open> stack;
  stack.push_back(open(&root));
  while (!stack.empty()) {
    Open& top = stack.back();
    const json::value* child = nullptr;
    if (const json::array* arr = top.v->if_array()) {
      if (top.next == arr->size()) {
        out += ']';
        stack.pop_back();
        continue;
      }
      if (top.next > 0) out += ',';
      child = &(*arr)[top.next++];
    } else {
      if (top.next == top.members.size()) {
        out += '}';
        stack.pop_back();
        continue;
      }
      if (top.next > 0) out += ',';
      const json::key_value_pair* m = top.members[top.next++];
      append_json_string(out, std::string_view(m->key().data(), m->key().size()));
      out += ':';
      child = &m->value();
    }
    if (child->is_array() || child->is_object()) {
      stack.push_back(open(child));  // invalidates `top`
    } else {
      append_scalar(out, *child);
    }
  }
}

std::string canonical_json(const json::value& value) {
  std::string out;
  append_canonical_json(out, value);
  return out;
}

bool json_equal(const json::value& a, const json::value& b) {
  if (is_json_number(a) || is_json_number(b)) return numbers_equal(a, b);
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case json::kind::null: return true;
    case json::kind::bool_: return a.get_bool() == b.get_bool();
    case json::kind::string: return a.get_string() == b.get_string();
    default: return canonical_json(a) == canonical_json(b);
  }
}

std::string compact_json(const json::value& value) { return serialize_json(value); }

}  // namespace msptk
