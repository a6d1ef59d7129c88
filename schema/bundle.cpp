#include "msptk/schema/bundle.hpp"

#include "instance.hpp"
#include "pointer.hpp"
#include "msptk/transcript/json_io.hpp"
#include "translate.hpp"

#include <valijson/adapters/boost_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

// After valijson, before anything instantiates its visitor: the linear pattern and format checks.
#include "linear_visits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

namespace msptk::schema {

namespace fs = std::filesystem;
namespace json = boost::json;

std::string_view to_string(Table table) {
  switch (table) {
    case Table::methods: return "methods";
    case Table::requests: return "requests";
    case Table::notifications: return "notifications";
  }
  return "methods";
}

Table table_for(Direction dir, FrameKind kind) {
  if (kind == FrameKind::notification) return Table::notifications;
  return dir == Direction::client ? Table::methods : Table::requests;
}

std::string_view to_string(Openness openness) {
  switch (openness) {
    case Openness::open: return "open";
    case Openness::closed: return "closed";
    case Openness::unmarked: return "unmarked";
  }
  return "unmarked";
}

std::string Violation::render() const {
  return fmt::format("{}: {} (schema {})", path, message, schema_location);
}

namespace {

using detail::at_pointer;
using detail::escape_pointer;
using detail::unescape_pointer;

constexpr int kMaxDescent = 32;  // anyOf/oneOf narrowing depth

struct Compiled {
  valijson::Schema schema;
  std::string error;  // why it could not be compiled
};

// One valijson error, its context made relative to the validated instance.
struct RawError {
  std::vector<std::string> context;  // segment texts without brackets
  std::string description;
};

Violation violation(std::string path, std::string location, Constraint constraint, std::string message) {
  Violation v;
  v.path = std::move(path);
  v.schema_location = std::move(location);
  v.constraint = constraint;
  v.message = std::move(message);
  return v;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool is_wrapper(std::string_view d) {
  return starts_with(d, "Failed to validate against schema associated with property name") ||
         starts_with(d, "Failed to validate item #") || starts_with(d, "Failed to validate against child schema #") ||
         starts_with(d, "Failed to validate against additional properties schema") ||
         starts_with(d, "Failed to validate against schema associated with pattern") ||
         starts_with(d, "Cannot validate item #") || starts_with(d, "Failed to validate against dependent schema") ||
         d.find("against corresponding item schema") != std::string_view::npos ||
         d.find("against additional items schema") != std::string_view::npos;
}

bool is_any_of(std::string_view d) { return starts_with(d, "Failed to validate against any schemas allowed by anyOf"); }
bool is_one_of(std::string_view d) {
  return starts_with(d, "Failed to validate against any child schemas allowed by oneOf") ||
         starts_with(d, "Failed to validate against exactly one child schema");
}

bool has_prefix(const std::vector<std::string>& context, const std::vector<std::string>& prefix) {
  return context.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), context.begin());
}

// Leaf errors in report order: wrappers dropped, the errors inside a failed anyOf/oneOf
// replaced by the failure itself (narrowed later).
std::vector<RawError> leaves(const valijson::ValidationResults& results) {
  std::vector<RawError> out;
  for (const auto& error : results) {
    RawError e;
    for (std::size_t i = 1; i < error.context.size(); ++i) {  // [0] is "<root>"
      std::string segment = error.context[i];
      if (segment.size() >= 2 && segment.front() == '[' && segment.back() == ']') segment = segment.substr(1, segment.size() - 2);
      e.context.push_back(std::move(segment));
    }
    e.description = error.description;
    if (is_wrapper(e.description)) continue;
    if (is_any_of(e.description) || is_one_of(e.description)) {
      while (!out.empty() && has_prefix(out.back().context, e.context)) out.pop_back();
    }
    out.push_back(std::move(e));
  }
  return out;
}

// A chain of schemas that are nothing but a $ref and lead back to themselves ("A": {"$ref":
// "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}) means no schema at all, and would send valijson's
// parser round forever: refused when the bundle is loaded.
std::string ref_cycle(const json::value& doc) {
  std::vector<const json::value*> stack{&doc};
  while (!stack.empty()) {
    const json::value* v = stack.back();
    stack.pop_back();
    if (const json::array* a = v->if_array()) {
      for (const json::value& e : *a) stack.push_back(&e);
      continue;
    }
    const json::object* o = v->if_object();
    if (!o) continue;
    for (const auto& m : *o) stack.push_back(&m.value());
    const json::value* ref = o->if_contains("$ref");
    if (!ref || !ref->is_string()) continue;
    std::vector<std::string> chain{std::string(ref->get_string())};
    for (int hops = 0; hops < 1000; ++hops) {
      const json::value* target = at_pointer(doc, chain.back());
      const json::object* t = target ? target->if_object() : nullptr;
      const json::value* next = t ? t->if_contains("$ref") : nullptr;
      if (!next || !next->is_string()) break;
      const std::string n(next->get_string());
      if (std::find(chain.begin(), chain.end(), n) != chain.end()) {
        std::string text;
        for (const std::string& c : chain) text += c + " → ";
        return fmt::format("$ref cycle: {}{} (schemas that are only a $ref to each other)", text, n);
      }
      chain.push_back(n);
    }
  }
  return {};
}

std::string member_path(std::string_view base, std::string_view key) {
  bool plain = !key.empty();
  for (char c : key) plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '-');
  if (plain) return fmt::format("{}.{}", base, key);
  return fmt::format("{}[{}]", base, json::serialize(json::value(key)));
}

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <class T>
using StringMap = std::unordered_map<std::string, T, StringHash, std::equal_to<>>;

}  // namespace

struct Bundle::State {
  std::string file;
  std::optional<std::string> fingerprint;
  json::value raw;
  json::value translated;
  std::vector<ErrorEntry> errors;
  bool has_errors = false;
  std::vector<EnumDef> enums;

  std::mutex mutex;
  StringMap<std::unique_ptr<Compiled>> cache;
  struct Entry {
    std::optional<std::string> params, result;  // JSON pointers of the entry's schemas
  };
  StringMap<Entry> entries[3];  // by Table

  const Compiled& compile(std::string_view pointer) {
    std::lock_guard lock(mutex);
    if (auto it = cache.find(pointer); it != cache.end()) return *it->second;
    auto compiled = std::make_unique<Compiled>();
    if (!at_pointer(translated, pointer)) {
      compiled->error = fmt::format("no schema at {}", pointer);
    } else {
      json::object& root = translated.get_object();
      root["$ref"] = pointer;
      try {
        valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
        valijson::adapters::BoostJsonAdapter adapter(translated);
        parser.populateSchema(adapter, compiled->schema);
      } catch (const std::exception& e) {
        compiled->error = fmt::format("the schema at {} cannot be compiled: {}", pointer, e.what());
      }
      root.erase("$ref");
    }
    return *cache.emplace(std::string(pointer), std::move(compiled)).first->second;
  }

  // --- locating schema nodes -------------------------------------------------------------

  // Follows $ref chains from `pointer`; returns the final pointer.
  std::string deref(std::string pointer) const {
    for (int hops = 0; hops < 64; ++hops) {
      const json::value* node = at_pointer(translated, pointer);
      const json::object* obj = node ? node->if_object() : nullptr;
      const json::value* ref = obj ? obj->if_contains("$ref") : nullptr;
      if (!ref || !ref->is_string() || !starts_with(ref->get_string(), "#")) return pointer;
      pointer = std::string(ref->get_string());
    }
    return pointer;
  }

  const json::object* node(std::string_view pointer) const {
    const json::value* v = at_pointer(translated, pointer);
    return v ? v->if_object() : nullptr;
  }

  // The schema location of the instance node reached by `context` from `start`.
  std::string locate(const std::string& start, const json::value& instance, const std::vector<std::string>& context,
                     const json::value** reached) const {
    std::string pointer = deref(start);
    const json::value* value = &instance;
    for (const std::string& segment : context) {
      const json::object* schema = node(pointer);
      if (const json::object* obj = value ? value->if_object() : nullptr) {
        value = obj->if_contains(segment);
        if (!schema) continue;
        const json::value* props = schema->if_contains("properties");
        if (props && props->is_object() && props->get_object().contains(segment)) {
          pointer = deref(pointer + "/properties/" + escape_pointer(segment));
          continue;
        }
        bool matched = false;
        if (const json::value* patterns = schema->if_contains("patternProperties"); patterns && patterns->is_object()) {
          for (const auto& p : patterns->get_object()) {
            if (detail::pattern_matches(std::string(p.key()), segment)) {
              pointer = deref(pointer + "/patternProperties/" + escape_pointer(p.key()));
              matched = true;
              break;
            }
          }
        }
        if (!matched && schema->contains("additionalProperties")) pointer = deref(pointer + "/additionalProperties");
      } else if (const json::array* arr = value ? value->if_array() : nullptr) {
        const std::size_t i = std::strtoul(segment.c_str(), nullptr, 10);
        value = i < arr->size() ? &(*arr)[i] : nullptr;
        if (!schema) continue;
        const json::value* items = schema->if_contains("items");
        if (items && items->is_array()) {
          if (i < items->get_array().size()) pointer = deref(fmt::format("{}/items/{}", pointer, i));
          else if (schema->contains("additionalItems")) pointer = deref(pointer + "/additionalItems");
        } else if (items) {
          pointer = deref(pointer + "/items");
        }
      } else {
        value = nullptr;
      }
    }
    if (reached) *reached = value;
    return pointer;
  }

  // --- describing ------------------------------------------------------------------------

  static std::string expected_type(const json::object* schema) {
    const json::value* type = schema ? schema->if_contains("type") : nullptr;
    if (!type) return "another type";
    if (type->is_string()) return std::string(type->get_string());
    std::string out;
    if (const json::array* list = type->if_array()) {
      for (std::size_t i = 0; i < list->size(); ++i) {
        if (i) out += i + 1 == list->size() ? " or " : ", ";
        out += (*list)[i].is_string() ? std::string((*list)[i].get_string()) : json::serialize((*list)[i]);
      }
    }
    return out;
  }

  // "ForkProvenance", "null", "string": what an alternative stands for.
  std::string describe_alternative(const std::string& pointer) const {
    const json::object* alt = node(pointer);
    if (alt) {
      if (const json::value* ref = alt->if_contains("$ref"); ref && ref->is_string()) {
        const std::string_view target = ref->get_string();
        const std::size_t slash = target.rfind('/');
        return unescape_pointer(target.substr(slash == std::string_view::npos ? 0 : slash + 1));
      }
      if (const json::value* c = alt->if_contains("const")) return detail::json_text(*c);
      if (alt->contains("type")) return expected_type(alt);
    }
    return pointer;
  }

  static bool type_fits(const json::value& type, const json::value& value) {
    const std::string_view have = detail::type_name(value);
    auto fits = [&](const json::value& t) {
      if (!t.is_string()) return false;
      const std::string_view want = t.get_string();
      if (want == have) return true;
      if (want == "number" && have == "integer") return true;
      if (want == "integer" && value.is_double()) return value.get_double() == std::floor(value.get_double());
      return false;
    };
    if (const json::array* list = type.if_array()) return std::any_of(list->begin(), list->end(), fits);
    return fits(type);
  }

  // Whether the value's type (and any const discriminator) selects this alternative.
  bool selects(const std::string& pointer, const json::value& value) const {
    const json::object* alt = node(deref(pointer));
    if (!alt) return false;
    if (const json::value* type = alt->if_contains("type"); type && !type_fits(*type, value)) return false;
    if (const json::value* c = alt->if_contains("const")) return *c == value;
    const json::object* obj = value.if_object();
    const json::value* props = alt->if_contains("properties");
    if (obj && props && props->is_object()) {
      for (const auto& p : props->get_object()) {
        const json::object* sub = p.value().if_object();
        const json::value* c = sub ? sub->if_contains("const") : nullptr;
        const json::value* have = obj->if_contains(p.key());
        if (c && have && *c != *have) return false;
      }
    }
    return true;
  }

  // The member every alternative gives a `const` for, and the consts ("stdio" or "http").
  std::optional<std::pair<std::string, std::string>> discriminator(const std::vector<std::string>& pointers,
                                                                   const json::value& value) const {
    const json::object& obj = value.get_object();
    for (const auto& member : obj) {
      std::string consts;
      bool all = true;
      for (std::size_t i = 0; i < pointers.size() && all; ++i) {
        const json::object* alt = node(deref(pointers[i]));
        const json::value* props = alt ? alt->if_contains("properties") : nullptr;
        const json::value* sub = props && props->is_object() ? props->get_object().if_contains(member.key()) : nullptr;
        const json::value* c = sub && sub->is_object() ? sub->get_object().if_contains("const") : nullptr;
        if (!c) all = false;
        else consts += (i ? (i + 1 == pointers.size() ? " or " : ", ") : "") + detail::json_text(*c);
      }
      if (all) return std::make_pair(std::string(member.key()), consts);
    }
    return std::nullopt;
  }

  bool valid(const std::string& pointer, const json::value& value) {
    const Compiled& c = compile(pointer);
    if (!c.error.empty()) return false;
    const std::optional<json::value> copy = detail::surrogate(value);
    thread_local valijson::Validator validator;
    valijson::adapters::BoostJsonAdapter adapter(copy ? *copy : value);
    return validator.validate(c.schema, adapter, nullptr);
  }

  // --- enum positions --------------------------------------------------------------------

  using EnumVisitor = std::function<void(const std::string&, const json::value&, bool)>;

  void walk_enums(const std::string& start, const json::value& value, const EnumVisitor& visit, int depth) {
    if (depth > 256) return;
    const std::string pointer = deref(start);
    const json::object* schema = node(pointer);
    if (!schema) return;
    if (const json::value* values = schema->if_contains("enum"); values && values->is_array()) {
      constexpr std::string_view defs = "#/$defs/";
      if (starts_with(pointer, defs) && pointer.find('/', defs.size()) == std::string::npos) {
        const auto& list = values->get_array();
        visit(unescape_pointer(std::string_view(pointer).substr(defs.size())), value,
              std::find(list.begin(), list.end(), value) != list.end());
      }
      return;
    }
    for (const char* keyword : {"anyOf", "oneOf"}) {
      const json::value* alts = schema->if_contains(keyword);
      if (!alts || !alts->is_array()) continue;
      const std::size_t n = alts->get_array().size();
      std::optional<std::string> chosen;
      for (std::size_t i = 0; i < n && !chosen; ++i) {
        std::string alt = fmt::format("{}/{}/{}", pointer, keyword, i);
        if (valid(alt, value)) chosen = alt;
      }
      for (std::size_t i = 0; i < n && !chosen; ++i) {
        std::string alt = fmt::format("{}/{}/{}", pointer, keyword, i);
        if (selects(alt, value)) chosen = alt;
      }
      if (chosen) walk_enums(*chosen, value, visit, depth + 1);
      return;
    }
    if (const json::value* all = schema->if_contains("allOf"); all && all->is_array()) {
      for (std::size_t i = 0; i < all->get_array().size(); ++i) walk_enums(fmt::format("{}/allOf/{}", pointer, i), value, visit, depth + 1);
    }
    if (const json::object* obj = value.if_object()) {
      const json::value* props = schema->if_contains("properties");
      const json::value* extra = schema->if_contains("additionalProperties");
      for (const auto& member : *obj) {
        if (props && props->is_object() && props->get_object().contains(member.key())) {
          walk_enums(pointer + "/properties/" + escape_pointer(member.key()), member.value(), visit, depth + 1);
        } else if (extra && extra->is_object()) {
          walk_enums(pointer + "/additionalProperties", member.value(), visit, depth + 1);
        }
      }
    } else if (const json::array* arr = value.if_array()) {
      const json::value* items = schema->if_contains("items");
      for (std::size_t i = 0; items && i < arr->size(); ++i) {
        if (items->is_object()) walk_enums(pointer + "/items", (*arr)[i], visit, depth + 1);
        else if (items->is_array() && i < items->get_array().size()) walk_enums(fmt::format("{}/items/{}", pointer, i), (*arr)[i], visit, depth + 1);
      }
    }
  }

  // --- validating ------------------------------------------------------------------------

  void validate(std::string_view pointer_view, const json::value& instance, std::string_view root_view,
                std::vector<Violation>& out, int depth) {
    const Compiled& compiled = compile(pointer_view);
    if (!compiled.error.empty()) {
      out.push_back(violation(std::string(root_view), std::string(pointer_view), Constraint::schema_unusable, compiled.error));
      return;
    }
    const std::optional<json::value> copy = detail::surrogate(instance);
    const json::value& checked = copy ? *copy : instance;
    thread_local valijson::Validator validator;
    valijson::adapters::BoostJsonAdapter adapter(checked);
    // One pass: with valid instances (the common case) collecting results costs nothing extra.
    valijson::ValidationResults results;
    if (validator.validate(compiled.schema, adapter, &results)) return;
    const std::string pointer(pointer_view), root(root_view);
    for (const RawError& error : leaves(results)) {
      const json::value* value = nullptr;
      const std::string location = locate(pointer, instance, error.context, &value);
      std::string path = root;
      const json::value* walk = &instance;
      for (const std::string& segment : error.context) {
        if (walk && walk->is_array()) {
          path += fmt::format("[{}]", segment);
          const std::size_t i = std::strtoul(segment.c_str(), nullptr, 10);
          walk = i < walk->get_array().size() ? &walk->get_array()[i] : nullptr;
        } else {
          path = member_path(path, segment);
          walk = walk && walk->is_object() ? walk->get_object().if_contains(segment) : nullptr;
        }
      }
      describe(error.description, location, path, value, out, depth);
    }
    // valijson reports a number at a string enum twice (enum and type): the type says it.
    std::set<std::string> typed;
    for (const Violation& v : out)
      if (v.constraint == Constraint::type) typed.insert(v.path);
    std::erase_if(out, [&](const Violation& v) {
      return v.constraint == Constraint::enum_value && !v.string_value && typed.contains(v.path);
    });
  }

  void describe(const std::string& d, const std::string& location, const std::string& path, const json::value* value,
                std::vector<Violation>& out, int depth) {
    const json::object* schema = node(location);
    Violation v = violation(path, location, Constraint::other, d);
    const std::string got = value ? std::string(detail::type_name(*value)) : "nothing";
    if (starts_with(d, "Value type not permitted")) {
      v.constraint = Constraint::type;
      v.message = fmt::format("expected {}, got {}", expected_type(schema), got);
    } else if (starts_with(d, "Missing required property '")) {
      v.constraint = Constraint::required;
      const std::string name = d.substr(27, d.rfind('\'') - 27);
      v.message = fmt::format("missing required member {}", json::serialize(json::value(name)));
    } else if (starts_with(d, "Failed to match against any enum values")) {
      v.constraint = Constraint::enum_value;
      const json::value* values = schema ? schema->if_contains("enum") : nullptr;
      constexpr std::string_view defs = "#/$defs/";
      if (starts_with(location, defs) && location.find('/', defs.size()) == std::string::npos) {
        v.enum_name = unescape_pointer(std::string_view(location).substr(defs.size()));
      }
      const json::value* openness = schema ? schema->if_contains("x-msp-openness") : nullptr;
      v.open_enum = openness && openness->is_string() && openness->get_string() == "open";
      v.string_value = value && detail::is_string(*value);
      v.value = value ? detail::json_text(*value) : "";
      std::string list;
      const std::size_t n = values && values->is_array() ? values->get_array().size() : 0;
      for (std::size_t i = 0; i < n && i < 6; ++i) list += (i ? ", " : "") + detail::json_text(values->get_array()[i]);
      if (n > 6) list += fmt::format(", … ({} values)", n);
      const std::string what = v.enum_name.empty() ? std::string("the enum")
                                                  : fmt::format("{} enum {}", v.open_enum ? "the open" : "the closed", v.enum_name);
      v.message = fmt::format("{} is not a value of {} (one of {})", v.value, what, list);
    } else if (starts_with(d, "Failed to match expected value set by 'const'")) {
      v.constraint = Constraint::const_value;
      const json::value* c = schema ? schema->if_contains("const") : nullptr;
      v.message = fmt::format("expected {}, got {}", c ? detail::json_text(*c) : "the const value",
                              value ? detail::json_text(*value) : got);
    } else if (starts_with(d, "Failed to match regex")) {
      v.constraint = Constraint::pattern;
      const json::value* p = schema ? schema->if_contains("pattern") : nullptr;
      v.message = fmt::format("expected a string matching {}, got {}", p ? detail::json_text(*p) : "the pattern",
                              value ? detail::json_text(*value) : got);
    } else if (starts_with(d, "Object contains a property that could not be validated")) {
      v.constraint = Constraint::additional_member;
      const std::size_t open = d.rfind(": '");
      const std::string name = open == std::string::npos ? "?" : d.substr(open + 3, d.size() - open - 4);
      v.message = fmt::format("unexpected member {} (additionalProperties is false)", json::serialize(json::value(name)));
    } else if (starts_with(d, "Missing dependency '")) {
      v.constraint = Constraint::dependency;
      const std::string needed = d.substr(20, d.rfind('\'') - 20);
      std::string because;
      const json::value* deps = schema ? schema->if_contains("dependencies") : nullptr;
      if (deps && deps->is_object() && value && value->is_object()) {
        for (const auto& dep : deps->get_object()) {
          const json::array* names = dep.value().if_array();
          if (!names || !value->get_object().contains(dep.key())) continue;
          for (const json::value& n : *names)
            if (n.is_string() && n.get_string() == needed) because = std::string(dep.key());
        }
      }
      v.message = because.empty() ? fmt::format("missing member {} (dependentRequired)", json::serialize(json::value(needed)))
                                  : fmt::format("member {} requires member {} (dependentRequired)",
                                                json::serialize(json::value(because)), json::serialize(json::value(needed)));
    } else if (starts_with(d, "Expected number") || starts_with(d, "String should be no") ||
               starts_with(d, "Array should contain") || starts_with(d, "Object should have") ||
               starts_with(d, "Value should be a multiple")) {
      v.constraint = Constraint::bounds;
      std::string bound;
      if (starts_with(d, "Expected number less than or equal to")) bound = bound_text(schema, "maximum", "at most");
      else if (starts_with(d, "Expected number greater than or equal to")) bound = bound_text(schema, "minimum", "at least");
      else if (starts_with(d, "Expected number less than")) bound = bound_text(schema, "exclusiveMaximum", "less than");
      else if (starts_with(d, "Expected number greater than")) bound = bound_text(schema, "exclusiveMinimum", "more than");
      if (!bound.empty()) {
        v.message = fmt::format("expected {}, got {}", bound, value ? detail::json_text(*value) : got);
      } else {
        v.message = lower_first(d);
      }
    } else if (starts_with(d, "Target should not validate")) {
      v.constraint = Constraint::not_;
      v.message = fmt::format("{} matches the schema under \"not\", which it must not", value ? detail::json_text(*value) : got);
    } else if (starts_with(d, "String should be a valid")) {
      v.constraint = Constraint::format;
      v.message = fmt::format("{}, got {}", lower_first(d), value ? detail::json_text(*value) : got);
    } else if (is_any_of(d) || is_one_of(d)) {
      narrow(is_any_of(d) ? "anyOf" : "oneOf", location, path, value, out, depth);
      return;
    } else {
      v.message = lower_first(d);
    }
    out.push_back(std::move(v));
  }

  static std::string lower_first(std::string s) {
    if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
    while (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }

  static std::string bound_text(const json::object* schema, const char* keyword, const char* words) {
    const json::value* b = schema ? schema->if_contains(keyword) : nullptr;
    if (!b) return {};
    return fmt::format("{} {}", words, detail::json_text(*b));
  }

  // A failed anyOf/oneOf at `location`: descend into the one alternative the value's type
  // selects, or say which alternatives there were.
  void narrow(const char* keyword, const std::string& location, const std::string& path, const json::value* value,
              std::vector<Violation>& out, int depth) {
    const json::object* schema = node(location);
    const json::value* alts = schema ? schema->if_contains(keyword) : nullptr;
    const std::size_t n = alts && alts->is_array() ? alts->get_array().size() : 0;
    const Constraint constraint = std::string_view(keyword) == "anyOf" ? Constraint::any_of : Constraint::one_of;
    if (!value || n == 0) {
      out.push_back(violation(path, location, constraint, fmt::format("matches none of the alternatives of {}", keyword)));
      return;
    }
    std::vector<std::string> pointers, matching, selected;
    for (std::size_t i = 0; i < n; ++i) {
      pointers.push_back(fmt::format("{}/{}/{}", location, keyword, i));
      if (valid(pointers.back(), *value)) matching.push_back(pointers.back());
      else if (selects(pointers.back(), *value)) selected.push_back(pointers.back());
    }
    std::string names;
    for (std::size_t i = 0; i < n; ++i) names += (i ? (i + 1 == n ? " or " : ", ") : "") + describe_alternative(pointers[i]);
    if (matching.empty() && selected.empty() && value->is_object()) {
      // Alternatives told apart by one member's const (a discriminated union): say so there.
      if (auto d = discriminator(pointers, *value)) {
        out.push_back(violation(member_path(path, d->first), location, constraint,
                                fmt::format("expected {}, got {} (the member that selects an alternative of {})",
                                            d->second, detail::json_text(value->get_object().at(d->first)), keyword)));
        return;
      }
    }
    if (matching.size() > 1) {
      out.push_back(violation(path, location, constraint,
                              fmt::format("matches {} of the alternatives of oneOf ({}), exactly one allowed",
                                          matching.size(), names)));
      return;
    }
    if (selected.size() == 1 && depth < kMaxDescent) {
      const std::size_t before = out.size();
      validate(selected.front(), *value, path, out, depth + 1);
      if (out.size() > before) return;
    }
    out.push_back(violation(path, location, constraint,
                            fmt::format("expected {}, got {}", names,
                                        detail::is_string(*value) || detail::is_number(*value) || value->is_bool()
                                            ? std::string(detail::type_name(*value)) + " " + detail::json_text(*value, 40)
                                            : std::string(detail::type_name(*value)))));
  }
};

Result<Bundle> Bundle::load(const fs::path& path) {
  std::error_code ec;
  fs::path file = path;
  std::optional<std::string> fingerprint;
  if (fs::is_directory(path, ec)) {
    file = path / "msp.schema.json";
    if (!fs::exists(file, ec)) {
      return Error::unreadable(path.string(), "not a schema bundle folder: no msp.schema.json in it");
    }
  }
  const fs::path manifest = file.parent_path() / "manifest.json";
  if (fs::exists(manifest, ec)) {
    auto m = parse_json_file(manifest);
    if (!m) return m.error();
    const json::object* obj = m->if_object();
    const json::value* f = obj ? obj->if_contains("fingerprint") : nullptr;
    if (f && f->is_string()) fingerprint = std::string(f->get_string());
  }
  auto value = parse_json_file(file);
  if (!value) return value.error();
  return from_json(std::move(*value), file.string(), std::move(fingerprint));
}

Result<Bundle> Bundle::from_json(json::value bundle, std::string file, std::optional<std::string> fingerprint) {
  const json::object* obj = bundle.if_object();
  if (!obj) return Error::malformed(file, 1, "schema.bundle", "a schema bundle is a JSON object");
  for (const char* table : {"methods", "notifications"}) {
    const json::value* t = obj->if_contains(table);
    if (!t || !t->is_object()) {
      return Error::malformed(file, 1, "schema.bundle",
                              fmt::format("not an MSP schema bundle: no \"{}\" table (an object of method entries)", table));
    }
  }
  if (const json::value* t = obj->if_contains("requests"); t && !t->is_object()) {
    return Error::malformed(file, 1, "schema.bundle", "not an MSP schema bundle: \"requests\" is not an object");
  }
  auto state = std::make_shared<State>();
  state->file = std::move(file);
  state->fingerprint = std::move(fingerprint);
  state->translated = bundle;
  if (std::string problem = detail::translate_to_draft7(state->translated); !problem.empty()) {
    return Error::malformed(state->file, 1, "schema.bundle", problem);
  }
  if (std::string cycle = ref_cycle(state->translated); !cycle.empty()) {
    return Error::malformed(state->file, 1, "schema.bundle", cycle);
  }
  if (const json::value* errors = obj->if_contains("errors"); errors && errors->is_array()) {
    state->has_errors = true;
    for (const json::value& e : errors->get_array()) {
      const json::object* entry = e.if_object();
      const json::value* code = entry ? entry->if_contains("code") : nullptr;
      if (!code || !code->is_int64()) continue;
      ErrorEntry out;
      out.code = code->get_int64();
      if (const json::value* kind = entry->if_contains("kind"); kind && kind->is_string()) out.kind = kind->get_string();
      if (const json::value* o = entry->if_contains("overrideKinds"); o && o->is_array()) {
        for (const json::value& k : o->get_array())
          if (k.is_string()) out.override_kinds.emplace_back(k.get_string());
      }
      state->errors.push_back(std::move(out));
    }
  }
  if (const json::value* defs = obj->if_contains("$defs"); defs && defs->is_object()) {
    for (const auto& def : defs->get_object()) {
      const json::object* d = def.value().if_object();
      const json::value* values = d ? d->if_contains("enum") : nullptr;
      if (!values || !values->is_array()) continue;
      EnumDef e;
      e.name = def.key();
      e.values.assign(values->get_array().begin(), values->get_array().end());
      const json::value* openness = d->if_contains("x-msp-openness");
      if (openness && openness->is_string()) {
        e.openness = openness->get_string() == "open" ? Openness::open
                     : openness->get_string() == "closed" ? Openness::closed
                                                          : Openness::unmarked;
      }
      state->enums.push_back(std::move(e));
    }
    std::sort(state->enums.begin(), state->enums.end(), [](const EnumDef& a, const EnumDef& b) { return a.name < b.name; });
  }
  for (Table table : {Table::methods, Table::requests, Table::notifications}) {
    const json::value* t = obj->if_contains(to_string(table));
    if (!t || !t->is_object()) continue;
    for (const auto& m : t->get_object()) {
      State::Entry entry;
      const json::object* e = m.value().if_object();
      const std::string base = fmt::format("#/{}/{}/", to_string(table), escape_pointer(m.key()));
      if (e && e->contains("params")) entry.params = base + "params";
      if (e && e->contains("result")) entry.result = base + "result";
      state->entries[static_cast<int>(table)].emplace(std::string(m.key()), std::move(entry));
    }
  }
  state->raw = std::move(bundle);
  Bundle b;
  b.state_ = std::move(state);
  return b;
}

const std::string& Bundle::file() const { return state_->file; }
const std::optional<std::string>& Bundle::fingerprint() const { return state_->fingerprint; }
const json::value& Bundle::document() const { return state_->raw; }

bool Bundle::knows(Table table, std::string_view method) const {
  return state_->entries[static_cast<int>(table)].find(method) != state_->entries[static_cast<int>(table)].end();
}

std::vector<std::string> Bundle::methods(Table table) const {
  std::vector<std::string> out;
  const json::value* t = state_->raw.get_object().if_contains(to_string(table));
  if (t && t->is_object())
    for (const auto& m : t->get_object()) out.emplace_back(m.key());
  std::sort(out.begin(), out.end());
  return out;
}

const std::string* Bundle::schema_pointer(Table table, std::string_view method, std::string_view part) const {
  const auto& entries = state_->entries[static_cast<int>(table)];
  const auto it = entries.find(method);
  if (it == entries.end()) return nullptr;
  const std::optional<std::string>& pointer = part == "params" ? it->second.params : it->second.result;
  return pointer ? &*pointer : nullptr;
}

bool Bundle::has(std::string_view pointer) const { return at_pointer(state_->raw, pointer) != nullptr; }

const ErrorEntry* Bundle::error(std::int64_t code) const {
  for (const ErrorEntry& e : state_->errors)
    if (e.code == code) return &e;
  return nullptr;
}

const std::vector<ErrorEntry>& Bundle::errors() const { return state_->errors; }
bool Bundle::has_error_table() const { return state_->has_errors; }

std::vector<std::string> Bundle::grantable_capabilities() const {
  std::vector<std::string> out;
  const json::value* caps = state_->raw.get_object().if_contains("capabilities");
  const json::value* grantable = caps && caps->is_object() ? caps->get_object().if_contains("grantable") : nullptr;
  if (grantable && grantable->is_array())
    for (const json::value& c : grantable->get_array())
      if (c.is_string()) out.emplace_back(c.get_string());
  return out;
}

std::vector<EnumDef> Bundle::enums() const { return state_->enums; }

const EnumDef* Bundle::find_enum(std::string_view name) const {
  for (const EnumDef& e : state_->enums)
    if (e.name == name) return &e;
  return nullptr;
}

namespace {

// True when `instance` nests deeper than `limit` levels (found without recursion; stops at the
// first place past the limit).
bool deeper_than(const json::value& instance, std::size_t limit) {
  std::vector<std::pair<const json::value*, std::size_t>> stack{{&instance, 0}};
  while (!stack.empty()) {
    auto [v, depth] = stack.back();
    stack.pop_back();
    if (const json::object* o = v->if_object()) {
      if (depth + 1 > limit && !o->empty()) return true;
      for (const auto& m : *o) stack.emplace_back(&m.value(), depth + 1);
    } else if (const json::array* a = v->if_array()) {
      if (depth + 1 > limit && !a->empty()) return true;
      for (const auto& e : *a) stack.emplace_back(&e, depth + 1);
    }
  }
  return false;
}

}  // namespace

void Bundle::visit_enums(std::string_view pointer, const json::value& instance,
                         const std::function<void(const std::string&, const json::value&, bool)>& visit) const {
  if (deeper_than(instance, kMaxSchemaDepth)) return;
  state_->walk_enums(std::string(pointer), instance, visit, 0);
}

std::vector<Violation> Bundle::validate(std::string_view pointer, const json::value& instance, std::string_view root) const {
  std::vector<Violation> out;
  if (deeper_than(instance, kMaxSchemaDepth)) {
    Violation v;
    v.path = std::string(root);
    v.schema_location = std::string(pointer);
    v.constraint = Constraint::too_deep;
    v.message = fmt::format("nested deeper than {} levels: not checked against the schema", kMaxSchemaDepth);
    out.push_back(std::move(v));
    return out;
  }
  state_->validate(pointer, instance, root, out, 0);
  return out;
}

Result<BundleSet> BundleSet::load(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Error::unreadable(dir.string(), "--bundles is not a folder (it holds one subfolder per schema bundle)");
  }
  BundleSet set;
  set.dir_ = dir.string();
  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_directory() && fs::exists(entry.path() / "manifest.json") && fs::exists(entry.path() / "msp.schema.json"))
      folders.push_back(entry.path());
  }
  std::sort(folders.begin(), folders.end());
  std::optional<std::size_t> stable;
  for (const fs::path& folder : folders) {
    auto bundle = Bundle::load(folder);
    if (!bundle) return bundle.error();
    if (folder.filename() == "stable") stable = set.bundles_.size();
    set.bundles_.push_back(std::move(*bundle));
  }
  if (!stable) {
    return Error::unreadable(dir.string(), "no stable/ bundle in the --bundles folder (a stable/ subfolder with "
                                           "manifest.json and msp.schema.json is the fallback for unmatched pins)");
  }
  set.stable_ = *stable;
  return set;
}

const Bundle* BundleSet::find(std::string_view fingerprint) const {
  for (const Bundle& b : bundles_)
    if (b.fingerprint() && *b.fingerprint() == fingerprint) return &b;
  return nullptr;
}

}  // namespace msptk::schema
