// The schema walk that names and classifies every change between two bundles (drift.hpp).
#include "msptk/maintenance/drift.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/transcript/json_io.hpp"

#include <boost/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <set>

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

std::string escape(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string child(const std::string& pointer, std::string_view token) { return pointer + "/" + escape(token); }

std::string brief(const json::value& v) {
  std::string text = serialize_json(v);
  if (text.size() > 120) text = text.substr(0, 117) + "...";
  return text;
}

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
      std::set<std::string> seen;
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

class Walker {
 public:
  std::vector<SchemaChange> changes;

  void add(std::string pointer, ChangeKind kind, std::string detail) {
    changes.push_back(SchemaChange{std::move(pointer), kind, std::move(detail)});
  }

  // Two values at the same place; `map` when they are the entries of a name-keyed map.
  void value(const json::value& a, const json::value& b, const std::string& pointer) {
    if (a == b) return;
    if (a.is_object() && b.is_object()) return object(a.get_object(), b.get_object(), pointer);
    if (a.is_array() && b.is_array()) return array(a.get_array(), b.get_array(), pointer);
    add(pointer, ChangeKind::constraint, fmt::format("{} -> {}", brief(a), brief(b)));
  }

  // A name-keyed map (methods, $defs, properties, ...): entries added or removed one by one.
  // `required` is the owning schema's new `required` list (for properties).
  void map(const json::object& a, const json::object& b, const std::string& pointer, std::string_view what,
           const std::set<std::string>* required_before, const std::set<std::string>* required_after) {
    for (const auto& m : a) {
      const std::string p = child(pointer, m.key());
      if (const json::value* other = b.if_contains(m.key())) value(m.value(), *other, p);
      else add(p, ChangeKind::removed, fmt::format("{} removed", what));
    }
    for (const auto& m : b) {
      if (a.contains(m.key())) continue;
      const std::string key(m.key());
      const bool required = required_after && required_after->contains(serialize_json(json::string(key)));
      add(child(pointer, key), required ? ChangeKind::added_required : ChangeKind::added,
          fmt::format("{} added{}", what, required ? " (required)" : ""));
    }
    (void)required_before;
  }

  void object(const json::object& a, const json::object& b, const std::string& pointer) {
    const std::set<std::string> req_a = strings_of(a.if_contains("required"));
    const std::set<std::string> req_b = strings_of(b.if_contains("required"));
    std::set<std::string, std::less<>> keys;
    for (const auto& m : a) keys.emplace(m.key());
    for (const auto& m : b) keys.emplace(m.key());
    for (const std::string& key : keys) {
      const json::value* va = a.if_contains(key);
      const json::value* vb = b.if_contains(key);
      const std::string p = child(pointer, key);
      if (va && vb && *va == *vb) continue;
      if (kAnnotations.contains(key)) {
        add(p, ChangeKind::annotation, !va ? "added" : !vb ? "removed" : "changed");
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
        map(va ? va->get_object() : empty, vb ? vb->get_object() : empty, p, what, members ? &req_a : nullptr,
            members ? &req_b : nullptr);
        continue;
      }
      if (key == "required") {
        required(a, b, req_a, req_b, p);
        continue;
      }
      if (key == "enum") {
        enumeration(a, b, va, vb, p);
        continue;
      }
      if (!va) {
        add(p, ChangeKind::constraint, fmt::format("keyword added: {}", brief(*vb)));
        continue;
      }
      if (!vb) {
        add(p, ChangeKind::removed, fmt::format("keyword removed (was {})", brief(*va)));
        continue;
      }
      if (key == "type" || key == "$ref") {
        if (strings_of(va) != strings_of(vb))
          add(p, ChangeKind::retyped, fmt::format("{} -> {}", brief(*va), brief(*vb)));
        continue;
      }
      value(*va, *vb, p);
    }
  }

  void required(const json::object& a, const json::object& b, const std::set<std::string>& req_a,
                const std::set<std::string>& req_b, const std::string& p) {
    const json::value* props_a = a.if_contains("properties");
    for (const std::string& name : req_b) {
      if (req_a.contains(name)) continue;
      // A member that is new and required is reported once, where it is added.
      auto parsed = parse_json(name);
      json::value decoded = parsed ? std::move(*parsed) : json::value(nullptr);
      const bool existed = decoded.is_string() && props_a && props_a->is_object() &&
                           props_a->get_object().contains(decoded.get_string());
      const bool is_new = decoded.is_string() && !existed && b.if_contains("properties") &&
                          b.at("properties").is_object() && b.at("properties").get_object().contains(decoded.get_string());
      if (!is_new) add(p, ChangeKind::made_required, fmt::format("{} made required", name));
    }
    for (const std::string& name : req_a)
      if (!req_b.contains(name)) add(p, ChangeKind::made_optional, fmt::format("{} no longer required", name));
    (void)b;
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
    if (before == after && *va != *vb) add(p, ChangeKind::enum_changed, "enum values reordered");
  }

  void array(const json::array& a, const json::array& b, const std::string& pointer) {
    if (auto key = table_key(a, b)) {
      auto row = [&](const json::array& side, const json::value& k) -> const json::value* {
        for (const json::value& e : side)
          if (e.get_object().at(*key) == k) return &e;
        return nullptr;
      };
      for (const json::value& e : a) {
        const json::value& k = e.get_object().at(*key);
        const std::string p = child(pointer, key_text(k));
        if (const json::value* other = row(b, k)) value(e, *other, p);
        else add(p, ChangeKind::removed, fmt::format("row {} {} removed", *key, brief(k)));
      }
      for (const json::value& e : b) {
        const json::value& k = e.get_object().at(*key);
        if (!row(a, k)) add(child(pointer, key_text(k)), ChangeKind::added, fmt::format("row {} {} added", *key, brief(k)));
      }
      return;
    }
    const bool scalars = std::all_of(a.begin(), a.end(), [](const json::value& v) { return !v.is_structured(); }) &&
                         std::all_of(b.begin(), b.end(), [](const json::value& v) { return !v.is_structured(); });
    if (scalars) {
      std::set<std::string> sa, sb;
      for (const json::value& v : a) sa.insert(serialize_json(v));
      for (const json::value& v : b) sb.insert(serialize_json(v));
      for (const std::string& v : sb)
        if (!sa.contains(v)) add(pointer, ChangeKind::constraint, fmt::format("value {} added", v));
      for (const std::string& v : sa)
        if (!sb.contains(v)) add(pointer, ChangeKind::removed, fmt::format("value {} removed", v));
      if (sa == sb) add(pointer, ChangeKind::constraint, "values reordered");
      return;
    }
    if (a.size() != b.size()) {
      add(pointer, ChangeKind::constraint, fmt::format("{} elements -> {}", a.size(), b.size()));
      return;
    }
    for (std::size_t i = 0; i < a.size(); ++i) value(a[i], b[i], child(pointer, std::to_string(i)));
  }
};

}  // namespace

std::vector<SchemaChange> compare_schemas(const json::value& pinned, const json::value& stable) {
  Walker walker;
  walker.value(pinned, stable, "");
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
