// The schema walk that names and classifies every change between two bundles (drift.hpp).
#include "msptk/maintenance/drift.hpp"
#include "brief.hpp"
#include "msptk/normalizer/canonical.hpp"
#include "msptk/transcript/json_pointer.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/transcript/json_io.hpp"

#include <boost/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace msptk::maintenance {

namespace fs = std::filesystem;
namespace json = boost::json;

std::string_view to_string(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::added: return "added";
    case ChangeKind::added_required: return "added required";
    case ChangeKind::removed: return "removed";
    case ChangeKind::retyped: return "retyped";
    case ChangeKind::made_required: return "made required";
    case ChangeKind::made_optional: return "no longer required";
    case ChangeKind::enum_added_open: return "open enum value added";
    case ChangeKind::enum_changed: return "enum changed";
    case ChangeKind::constraint: return "changed";
    case ChangeKind::annotation: return "annotation changed";
  }
  return "changed";
}

bool is_additive(ChangeKind kind) {
  return kind == ChangeKind::added || kind == ChangeKind::enum_added_open || kind == ChangeKind::annotation;
}

std::string_view to_string(DriftClass drift) {
  switch (drift) {
    case DriftClass::additive: return "additive";
    case DriftClass::non_additive: return "non-additive";
    case DriftClass::unclassified: return "unclassified";
  }
  return "unclassified";
}

std::size_t Drift::non_additive() const {
  return static_cast<std::size_t>(
      std::count_if(changes.begin(), changes.end(), [](const SchemaChange& c) { return !is_additive(c.kind); }));
}

std::size_t Drift::annotations() const {
  return static_cast<std::size_t>(std::count_if(
      changes.begin(), changes.end(), [](const SchemaChange& c) { return c.kind == ChangeKind::annotation; }));
}

DriftClass classify(const std::vector<SchemaChange>& changes) {
  for (const SchemaChange& c : changes)
    if (!is_additive(c.kind)) return DriftClass::non_additive;
  return DriftClass::additive;
}

namespace {

const std::set<std::string, std::less<>> kNameMaps = {"methods", "notifications", "requests", "$defs",
                                                      "definitions", "properties", "patternProperties",
                                                      "dependentSchemas"};
const std::set<std::string, std::less<>> kAnnotations = {"description", "title", "$comment", "examples"};
constexpr const char* kTableKeys[] = {"code", "identifier", "name", "method"};

std::string escape(std::string_view token) { return json_pointer_token(token); }

using detail::brief;

std::set<std::string> strings_of(const json::value* v) {
  std::set<std::string> out;
  if (!v) return out;
  if (v->is_string()) out.emplace(v->get_string());
  if (v->is_array())
    for (const json::value& e : v->get_array()) out.insert(serialize_json(e));
  return out;
}

bool is_open(const json::object& o) {
  const json::value* v = o.if_contains("x-msp-openness");
  return v && v->is_string() && *v == "open";
}

// The key that makes an array a table of rows (every element an object with a distinct scalar
// value under it), on both sides.
std::optional<std::string> table_key(const json::array& a, const json::array& b) {
  for (const char* key : kTableKeys) {
    bool ok = !a.empty() || !b.empty();
    for (const json::array* side : {&a, &b}) {
      std::unordered_set<std::string> seen;
      for (const json::value& e : *side) {
        const json::value* k = e.is_object() ? e.get_object().if_contains(key) : nullptr;
        if (!k || k->is_object() || k->is_array() || !seen.insert(serialize_json(*k)).second) {
          ok = false;
          break;
        }
      }
      if (!ok) break;
    }
    if (ok) return std::string(key);
  }
  return std::nullopt;
}

std::string key_text(const json::value& k) { return k.is_string() ? std::string(k.get_string()) : serialize_json(k); }

// The walk is linear in the two documents' size and holds no recursion: every pair of values
// at one place is a Task on an explicit stack (a bundle may nest 10,000 levels, as the parser
// allows), visited once. Only the places a change is reported at are compared whole (an
// annotation, an enum, a scalar); a pair of objects or arrays is never compared before it is
// walked, since the walk itself finds what differs (comparing each level first made the walk
// quadratic in depth, and copying the pointer at each level made it cubic). The pointer of
// the place being walked is one string, grown by a token on the way down and cut back to the
// parent's length when a sibling is taken; a change copies it.
class Walker {
 public:
  std::vector<SchemaChange> changes;

  void run(const json::value& a, const json::value& b) {
    stack_.push_back(Task{&a, &b, 0, {}});
    while (!stack_.empty()) {
      Task task = std::move(stack_.back());
      stack_.pop_back();
      pointer_.resize(task.parent_length);
      pointer_ += task.token;
      const std::size_t mark = stack_.size();
      value(*task.a, *task.b);
      // The children were pushed in document order; walk them in that order.
      std::reverse(stack_.begin() + static_cast<std::ptrdiff_t>(mark), stack_.end());
    }
  }

 private:
  struct Task {
    const json::value* a;
    const json::value* b;
    std::size_t parent_length;  // the length of the pointer of the place it was found at
    std::string token;          // the rest of its pointer: "/" and escaped reference tokens
  };
  std::vector<Task> stack_;
  std::string pointer_;

  // Walk `a` and `b` later, at the current place + `tokens` ("/name", "/properties/name").
  void walk(const json::value& a, const json::value& b, std::string tokens) {
    stack_.push_back(Task{&a, &b, pointer_.size(), std::move(tokens)});
  }
  std::string child(std::string_view token) const { return pointer_ + "/" + escape(token); }
  void add(std::string pointer, ChangeKind kind, std::string detail) {
    changes.push_back(SchemaChange{std::move(pointer), kind, std::move(detail)});
  }

  // Two values at the current place.
  void value(const json::value& a, const json::value& b) {
    if (a.is_object() && b.is_object()) return object(a.get_object(), b.get_object());
    if (a.is_array() && b.is_array()) return array(a.get_array(), b.get_array());
    if (json_equal(a, b)) return;  // scalars (or an object against a scalar: never equal)
    add(pointer_, ChangeKind::constraint, fmt::format("{} -> {}", brief(a), brief(b)));
  }

  // A name-keyed map (methods, $defs, properties, ...) under member `name` of the current
  // place: entries added or removed one by one. `required_after` is the owning schema's new
  // `required` list (for properties).
  void map(const json::object& a, const json::object& b, std::string_view name, std::string_view what,
           const std::set<std::string>* required_after) {
    const std::string token = "/" + escape(name), pointer = pointer_ + token;
    for (const auto& m : a) {
      if (const json::value* other = b.if_contains(m.key())) walk(m.value(), *other, token + "/" + escape(m.key()));
      else add(pointer + "/" + escape(m.key()), ChangeKind::removed, fmt::format("{} removed", what));
    }
    for (const auto& m : b) {
      if (a.contains(m.key())) continue;
      const std::string key(m.key());
      const bool required = required_after && required_after->contains(serialize_json(json::string(key)));
      add(pointer + "/" + escape(key), required ? ChangeKind::added_required : ChangeKind::added,
          fmt::format("{} added{}", what, required ? " (required)" : ""));
    }
  }

  void object(const json::object& a, const json::object& b) {
    const std::set<std::string> req_a = strings_of(a.if_contains("required"));
    const std::set<std::string> req_b = strings_of(b.if_contains("required"));
    std::set<std::string_view> keys;
    for (const auto& m : a) keys.emplace(m.key());
    for (const auto& m : b) keys.emplace(m.key());
    for (const std::string_view key : keys) {
      const json::value* va = a.if_contains(key);
      const json::value* vb = b.if_contains(key);
      if (kAnnotations.contains(key)) {
        if (!va || !vb || !json_equal(*va, *vb))
          add(child(key), ChangeKind::annotation, !va ? "added" : !vb ? "removed" : "changed");
        continue;
      }
      if (kNameMaps.contains(key) && (!va || va->is_object()) && (!vb || vb->is_object())) {
        static const json::object empty;
        const std::string what = key == "methods"         ? "method"
                                 : key == "notifications" ? "notification"
                                 : key == "requests"      ? "server request"
                                 : key == "properties" || key == "patternProperties" ? "member"
                                                                                     : "definition";
        const bool members = key == "properties" || key == "patternProperties";
        map(va ? va->get_object() : empty, vb ? vb->get_object() : empty, key, what,
            members ? &req_b : nullptr);
        continue;
      }
      if (key == "required") {
        if (!va || !vb || !json_equal(*va, *vb)) required(a, b, req_a, req_b, child(key));
        continue;
      }
      if (key == "enum") {
        if (!va || !vb || !json_equal(*va, *vb)) enumeration(a, b, va, vb, child(key));
        continue;
      }
      if (!va) {
        add(child(key), ChangeKind::constraint, fmt::format("keyword added: {}", brief(*vb)));
        continue;
      }
      if (!vb) {
        add(child(key), ChangeKind::removed, fmt::format("keyword removed (was {})", brief(*va)));
        continue;
      }
      if (key == "type" || key == "$ref") {
        if (strings_of(va) != strings_of(vb))
          add(child(key), ChangeKind::retyped, fmt::format("{} -> {}", brief(*va), brief(*vb)));
        continue;
      }
      walk(*va, *vb, "/" + escape(key));
    }
  }

  void required(const json::object& a, const json::object& b, const std::set<std::string>& req_a,
                const std::set<std::string>& req_b, const std::string& p) {
    const json::value* props_a = a.if_contains("properties");
    const json::value* props_b = b.if_contains("properties");
    for (const std::string& name : req_b) {
      if (req_a.contains(name)) continue;
      // A member that is new and required is reported once, where it is added.
      auto parsed = parse_json(name);
      json::value decoded = parsed ? std::move(*parsed) : json::value(nullptr);
      const bool existed = decoded.is_string() && props_a && props_a->is_object() &&
                           props_a->get_object().contains(decoded.get_string());
      const bool is_new = decoded.is_string() && !existed && props_b && props_b->is_object() &&
                          props_b->get_object().contains(decoded.get_string());
      if (!is_new) add(p, ChangeKind::made_required, fmt::format("{} made required", name));
    }
    for (const std::string& name : req_a)
      if (!req_b.contains(name)) add(p, ChangeKind::made_optional, fmt::format("{} no longer required", name));
  }

  void enumeration(const json::object& a, const json::object& b, const json::value* va, const json::value* vb,
                   const std::string& p) {
    if (!va || !vb || !va->is_array() || !vb->is_array()) {
      add(p, ChangeKind::enum_changed, !va ? "enum added (values restricted)" : !vb ? "enum removed" : "enum changed");
      return;
    }
    const std::set<std::string> before = strings_of(va), after = strings_of(vb);
    const bool open = is_open(a) && is_open(b);
    for (const std::string& v : after)
      if (!before.contains(v))
        add(p, open ? ChangeKind::enum_added_open : ChangeKind::enum_changed,
            fmt::format("value {} added ({} enum)", v, open ? "open" : "closed"));
    for (const std::string& v : before)
      if (!after.contains(v))
        add(p, ChangeKind::enum_changed, fmt::format("value {} removed ({} enum)", v, open ? "open" : "closed"));
    if (before == after) add(p, ChangeKind::enum_changed, "enum values reordered");
  }

  void array(const json::array& a, const json::array& b) {
    if (auto key = table_key(a, b)) {
      // Rows by their key's JSON text: one lookup a row (a search per row was quadratic).
      std::unordered_map<std::string, const json::value*> rows_a, rows_b;
      for (const json::value& e : a) rows_a.emplace(serialize_json(e.get_object().at(*key)), &e);
      for (const json::value& e : b) rows_b.emplace(serialize_json(e.get_object().at(*key)), &e);
      for (const json::value& e : a) {
        const json::value& k = e.get_object().at(*key);
        auto other = rows_b.find(serialize_json(k));
        if (other != rows_b.end()) walk(e, *other->second, "/" + escape(key_text(k)));
        else add(child(key_text(k)), ChangeKind::removed, fmt::format("row {} {} removed", *key, brief(k)));
      }
      for (const json::value& e : b) {
        const json::value& k = e.get_object().at(*key);
        if (!rows_a.contains(serialize_json(k)))
          add(child(key_text(k)), ChangeKind::added, fmt::format("row {} {} added", *key, brief(k)));
      }
      return;
    }
    const bool scalars = std::all_of(a.begin(), a.end(), [](const json::value& v) { return !v.is_structured(); }) &&
                         std::all_of(b.begin(), b.end(), [](const json::value& v) { return !v.is_structured(); });
    if (scalars) {
      if (a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), json_equal)) return;
      std::set<std::string> sa, sb;
      for (const json::value& v : a) sa.insert(serialize_json(v));
      for (const json::value& v : b) sb.insert(serialize_json(v));
      for (const std::string& v : sb)
        if (!sa.contains(v)) add(pointer_, ChangeKind::constraint, fmt::format("value {} added", v));
      for (const std::string& v : sa)
        if (!sb.contains(v)) add(pointer_, ChangeKind::removed, fmt::format("value {} removed", v));
      if (sa == sb) add(pointer_, ChangeKind::constraint, "values reordered");
      return;
    }
    if (a.size() != b.size()) {
      add(pointer_, ChangeKind::constraint, fmt::format("{} elements -> {}", a.size(), b.size()));
      return;
    }
    for (std::size_t i = 0; i < a.size(); ++i) walk(a[i], b[i], "/" + std::to_string(i));
  }
};

}  // namespace

std::vector<SchemaChange> compare_schemas(const json::value& pinned, const json::value& stable) {
  Walker walker;
  walker.run(pinned, stable);
  std::stable_sort(walker.changes.begin(), walker.changes.end(),
                   [](const SchemaChange& a, const SchemaChange& b) { return a.pointer < b.pointer; });
  return std::move(walker.changes);
}

BundleIndex index_bundles(const std::vector<fs::path>& dirs) {
  BundleIndex index;
  index.searched = dirs;
  auto consider = [&](const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_regular_file(dir / "manifest.json", ec) || !fs::is_regular_file(dir / "msp.schema.json", ec)) return;
    auto manifest = parse_json_file(dir / "manifest.json");
    if (!manifest || !manifest->is_object()) return;
    const json::value* f = manifest->get_object().if_contains("fingerprint");
    if (!f || !f->is_string()) return;
    index.by_fingerprint.emplace(std::string(f->get_string()), dir);
  };
  for (const fs::path& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    consider(dir);
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code e;
      if (!it->is_directory(e)) continue;
      if (it->path().filename() == "transcripts") {
        it.disable_recursion_pending();
        continue;
      }
      consider(it->path());
    }
  }
  return index;
}

Result<Drift> BundleIndex::drift(const std::string& pinned, const fs::path& stable_bundle) const {
  Drift drift;
  auto found = by_fingerprint.find(pinned);
  if (found == by_fingerprint.end()) return drift;
  drift.pinned_bundle = found->second;
  auto before = parse_json_file(found->second / "msp.schema.json");
  if (!before) return before.error();
  auto after = parse_json_file(stable_bundle / "msp.schema.json");
  if (!after) return after.error();
  drift.changes = compare_schemas(*before, *after);
  drift.kind = classify(drift.changes);
  return drift;
}

}  // namespace msptk::maintenance
