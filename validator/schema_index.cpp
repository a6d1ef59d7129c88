#include "msptk/validator/schema_index.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/transcript/json_io.hpp"

#include <fmt/format.h>

namespace msptk {

namespace json = boost::json;

namespace {

constexpr int kMaxDepth = 64;  // $ref cycles in a bundle must not hang the validator

std::string_view json_type(const json::value& v) {
  switch (v.kind()) {
    case json::kind::object: return "object";
    case json::kind::array: return "array";
    case json::kind::string: return "string";
    case json::kind::bool_: return "boolean";
    case json::kind::null: return "null";
    case json::kind::double_: return "number";
    default: return "integer";
  }
}

// True when `schema` declares no `type`, or a type (or type list) the value has.
bool type_fits(const json::object& schema, const json::value& value) {
  const json::value* type = schema.if_contains("type");
  if (!type) return true;
  const std::string_view have = json_type(value);
  auto fits = [&](const json::value& t) {
    if (!is_json_string(t)) return false;
    const std::string_view want = t.get_string();
    return want == have || (want == "number" && have == "integer");
  };
  if (const json::array* list = type->if_array()) {
    for (const json::value& t : *list)
      if (fits(t)) return true;
    return false;
  }
  return fits(*type);
}

}  // namespace

Result<SchemaIndex> SchemaIndex::load(const std::filesystem::path& file) {
  auto value = parse_json_file(file);
  if (!value) return value.error();
  return from_json(std::move(*value), file.string());
}

Result<SchemaIndex> SchemaIndex::from_json(json::value bundle, const std::string& file) {
  const json::object* obj = bundle.if_object();
  if (!obj) return Error::malformed(file, 1, "schema.bundle", "a schema bundle is a JSON object");
  for (const char* table : {"methods", "requests", "notifications"}) {
    const json::value* t = obj->if_contains(table);
    if (!t || !t->is_object()) {
      return Error::malformed(file, 1, "schema.bundle",
                              fmt::format("not an MSP schema bundle: no \"{}\" table (an object of method entries)", table));
    }
  }
  SchemaIndex index;
  index.file_ = file;
  index.bundle_ = std::move(bundle);
  return index;
}

SchemaIndex::Table SchemaIndex::table_for(Direction dir, FrameKind kind) {
  if (kind == FrameKind::notification) return Table::notifications;
  return dir == Direction::client ? Table::client_requests : Table::server_requests;
}

std::string_view SchemaIndex::table_name(Table table) {
  switch (table) {
    case Table::client_requests: return "methods";
    case Table::server_requests: return "requests";
    case Table::notifications: return "notifications";
  }
  return "methods";
}

bool SchemaIndex::knows(Table table, std::string_view method) const {
  return bundle_.get_object().at(table_name(table)).get_object().contains(method);
}

const json::value* SchemaIndex::entry(Table table, std::string_view method, std::string_view part) const {
  const json::value* e = bundle_.get_object().at(table_name(table)).get_object().if_contains(method);
  if (!e || !e->is_object()) return nullptr;
  return e->get_object().if_contains(part);
}

const json::value* SchemaIndex::resolve(const json::value& schema, std::string* def_name) const {
  const json::value* node = &schema;
  for (int hops = 0; hops < kMaxDepth; ++hops) {
    const json::object* obj = node->if_object();
    if (!obj) return nullptr;
    const json::value* ref = obj->if_contains("$ref");
    if (!ref || !is_json_string(*ref)) return node;
    const std::string_view target = ref->get_string();
    constexpr std::string_view prefix = "#/$defs/";
    if (target.substr(0, prefix.size()) != prefix) return nullptr;  // external refs: not followed
    const json::value* defs = bundle_.get_object().if_contains("$defs");
    const json::value* next = defs && defs->is_object() ? defs->get_object().if_contains(target.substr(prefix.size())) : nullptr;
    if (!next) return nullptr;
    if (def_name) *def_name = std::string(target.substr(prefix.size()));
    node = next;
  }
  return nullptr;
}

void SchemaIndex::walk(const json::value& schema, const json::value& value, const std::string& location,
                       std::vector<UnknownEnumValue>& out, int depth) const {
  if (depth > kMaxDepth) return;
  std::string def_name;
  const json::value* resolved = resolve(schema, &def_name);
  if (!resolved) return;
  const json::object& node = resolved->get_object();
  if (const json::value* any_of = node.if_contains("anyOf"); any_of && any_of->is_array()) {
    for (const json::value& alternative : any_of->get_array()) {
      const json::value* alt = resolve(alternative, nullptr);
      if (alt && type_fits(alt->get_object(), value)) {
        walk(alternative, value, location, out, depth + 1);
        return;
      }
    }
    return;
  }
  if (const json::value* values = node.if_contains("enum"); values && values->is_array() && is_json_string(value)) {
    bool found = false;
    for (const json::value& v : values->get_array()) found = found || v == value;
    if (!found) {
      const json::value* openness = node.if_contains("x-msp-openness");
      out.push_back({location, std::string(value.get_string()), def_name.empty() ? "(inline enum)" : def_name,
                     openness && is_json_string(*openness) && openness->get_string() == "open"});
    }
    return;
  }
  if (const json::object* members = value.if_object()) {
    const json::value* props = node.if_contains("properties");
    if (!props || !props->is_object()) return;
    for (const auto& member : *members) {
      if (const json::value* sub = props->get_object().if_contains(member.key())) {
        walk(*sub, member.value(), fmt::format("{}.{}", location, std::string_view(member.key())), out, depth + 1);
      }
    }
  } else if (const json::array* elements = value.if_array()) {
    const json::value* items = node.if_contains("items");
    if (!items) return;
    for (std::size_t i = 0; i < elements->size(); ++i) {
      walk(*items, (*elements)[i], fmt::format("{}[{}]", location, i), out, depth + 1);
    }
  }
}

std::vector<UnknownEnumValue> SchemaIndex::unknown_params_enums(Table table, std::string_view method,
                                                                const json::value& params) const {
  std::vector<UnknownEnumValue> out;
  if (const json::value* schema = entry(table, method, "params")) walk(*schema, params, "params", out, 0);
  return out;
}

std::vector<UnknownEnumValue> SchemaIndex::unknown_result_enums(Table table, std::string_view method,
                                                                const json::value& result) const {
  std::vector<UnknownEnumValue> out;
  if (const json::value* schema = entry(table, method, "result")) walk(*schema, result, "result", out, 0);
  return out;
}

}  // namespace msptk
