#include "translate.hpp"

#include "msptk/transcript/json_parse.hpp"
#include "msptk/schema/pattern.hpp"
#include "pointer.hpp"

#include <fmt/format.h>

#include <string_view>
#include <vector>

namespace msptk::schema::detail {

namespace json = boost::json;

namespace {

// Keywords whose value is one schema.
constexpr std::string_view kOneSchema[] = {"additionalProperties", "additionalItems", "not", "contains",
                                           "propertyNames", "if", "then", "else", "items"};
// Keywords whose value is an array of schemas.
constexpr std::string_view kSchemaArray[] = {"allOf", "anyOf", "oneOf", "prefixItems", "items"};
// Keywords whose value is an object of schemas.
constexpr std::string_view kSchemaMap[] = {"properties", "patternProperties", "$defs", "definitions",
                                           "dependentSchemas"};
// 2020-12 keywords valijson has no equivalent for.
constexpr std::string_view kUnsupported[] = {"unevaluatedProperties", "unevaluatedItems", "$dynamicRef",
                                             "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor",
                                             "minContains", "maxContains"};
// Annotations that may sit beside a $ref without changing what it asserts.
constexpr std::string_view kAnnotations[] = {"description", "title", "$comment", "default", "examples",
                                             "deprecated", "readOnly", "writeOnly"};

template <std::size_t N>
bool one_of(std::string_view key, const std::string_view (&set)[N]) {
  for (std::string_view s : set)
    if (s == key) return true;
  return false;
}

bool is_extension(std::string_view key) { return key.substr(0, 2) == "x-"; }

struct Reference {
  std::string at;      // the pointer of the $ref member ("#/methods/a/params/$ref")
  std::string target;  // its value
};

struct Translator {
  std::string problem;
  int depth = 0;
  std::vector<Reference> references;  // every $ref of a schema node, as written
  std::vector<Reference> patterns;    // every pattern and patternProperties name, as written

  void node(json::value& schema, const std::string& at) {
    if (!problem.empty()) return;
    json::object* obj = schema.if_object();
    if (!obj) return;  // true/false schemas
    if (++depth > 200) {
      problem = fmt::format("{} is nested deeper than 200 schema levels", at);
      return;
    }
    for (const auto& member : *obj) {
      if (one_of(member.key(), kUnsupported)) {
        problem = fmt::format("{} uses {}, which has no draft-7 equivalent in valijson", at,
                              std::string_view(member.key()));
        return;
      }
    }
    if (const json::value* ref = obj->if_contains("$ref"); ref && ref->is_string())
      references.push_back(Reference{at + "/$ref", std::string(ref->get_string())});
    if (const json::value* pattern = obj->if_contains("pattern"); pattern && pattern->is_string())
      patterns.push_back(Reference{at + "/pattern", std::string(pattern->get_string())});
    if (const json::value* names = obj->if_contains("patternProperties"); names && names->is_object())
      for (const auto& name : names->get_object())
        patterns.push_back(Reference{at + "/patternProperties/" + escape_pointer(name.key()), std::string(name.key())});
    rewrite(*obj);
    for (auto& member : *obj) {
      const std::string_view key = member.key();
      const std::string here = at + "/" + escape_pointer(key);
      if (key == "dependencies" && member.value().is_object()) {
        for (auto& dep : member.value().get_object())
          if (dep.value().is_object()) node(dep.value(), here + "/" + escape_pointer(dep.key()));
      } else if (one_of(key, kSchemaMap) && member.value().is_object()) {
        for (auto& sub : member.value().get_object()) node(sub.value(), here + "/" + escape_pointer(sub.key()));
      } else if (one_of(key, kSchemaArray) && member.value().is_array()) {
        std::size_t i = 0;
        for (auto& sub : member.value().get_array()) node(sub, fmt::format("{}/{}", here, i++));
      } else if (one_of(key, kOneSchema)) {
        node(member.value(), here);
      }
    }
    --depth;
  }

  static void rewrite(json::object& obj) {
    if (json::value* required = obj.if_contains("dependentRequired")) {
      json::value moved = std::move(*required);
      obj.erase("dependentRequired");
      merge_dependencies(obj, std::move(moved));
    }
    if (json::value* schemas = obj.if_contains("dependentSchemas")) {
      json::value moved = std::move(*schemas);
      obj.erase("dependentSchemas");
      merge_dependencies(obj, std::move(moved));
    }
    if (json::value* prefix = obj.if_contains("prefixItems")) {
      json::value moved = std::move(*prefix);
      obj.erase("prefixItems");
      if (json::value* items = obj.if_contains("items")) {
        json::value rest = std::move(*items);
        obj.erase("items");
        obj["additionalItems"] = std::move(rest);
      }
      obj["items"] = std::move(moved);
    }
    if (obj.contains("$ref")) {
      bool assertions = false;
      for (const auto& member : obj) {
        const std::string_view key = member.key();
        if (key != "$ref" && !one_of(key, kAnnotations) && !is_extension(key)) assertions = true;
      }
      if (assertions) {
        json::value ref = std::move(obj["$ref"]);
        obj.erase("$ref");
        json::array all;
        if (json::value* existing = obj.if_contains("allOf"); existing && existing->is_array()) {
          all = std::move(existing->get_array());
        }
        all.push_back(json::object{{"$ref", std::move(ref)}});
        obj["allOf"] = std::move(all);
      }
    }
  }

  static void merge_dependencies(json::object& obj, json::value deps) {
    json::value& target = obj["dependencies"];
    if (!target.is_object()) target = json::object();
    if (json::object* from = deps.if_object()) {
      for (auto& dep : *from) target.get_object()[dep.key()] = std::move(dep.value());
    }
  }
};

}  // namespace

std::string translate_to_draft7(json::value& bundle) {
  Translator t;
  json::object* root = bundle.if_object();
  if (!root) return "a schema bundle is a JSON object";
  for (auto& member : *root) {
    const std::string_view key = member.key();
    const std::string at = "#/" + escape_pointer(key);
    if (key == "$defs" || key == "definitions") {
      if (json::object* defs = member.value().if_object())
        for (auto& def : *defs) t.node(def.value(), at + "/" + escape_pointer(def.key()));
    } else if (key == "methods" || key == "requests" || key == "notifications") {
      json::object* table = member.value().if_object();
      if (!table) continue;
      for (auto& entry : *table) {
        json::object* e = entry.value().if_object();
        if (!e) continue;
        for (const char* part : {"params", "result"}) {
          if (json::value* schema = e->if_contains(part))
            t.node(*schema, fmt::format("{}/{}/{}", at, escape_pointer(entry.key()), part));
        }
      }
    }
  }
  if (!t.problem.empty()) return t.problem;
  // Patterns are matched in linear time (pattern.hpp); one that cannot be is refused here, once,
  // rather than matched by a backtracking engine or skipped.
  for (const Reference& p : t.patterns) {
    auto compiled = Pattern::compile(p.target);
    if (const std::string* why = std::get_if<std::string>(&compiled))
      return fmt::format("{} is {}, a pattern msptk cannot match in linear time: {}", p.at, serialize_json(json::value(p.target)),
                         *why);
  }
  // A reference that names nothing would leave its schema out silently (coverage mapped less,
  // validate reported a schema it could not use frame after frame): the bundle is refused.
  for (const Reference& r : t.references) {
    if (at_pointer(bundle, r.target)) continue;
    if (!r.target.starts_with("#"))
      return fmt::format("{} is {}, a reference outside the bundle: msptk resolves only references into the bundle "
                         "(\"#/...\")",
                         r.at, serialize_json(json::value(r.target)));
    return fmt::format("{} is {}, which names nothing in the bundle (a dangling reference)", r.at,
                       serialize_json(json::value(r.target)));
  }
  return {};
}

}  // namespace msptk::schema::detail
