#include "msptk/coverage/coverage.hpp"

#include "msptk/transcript/correlator.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/scenario.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace msptk::coverage {

namespace fs = std::filesystem;
namespace json = boost::json;

std::size_t Table::covered() const {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [](const Row& r) { return r.covered(); }));
}

const Table* CoverageMap::table(std::string_view id) const {
  for (const Table& t : tables)
    if (t.id == id) return &t;
  return nullptr;
}

std::string CoverageMap::summary() const {
  std::string out;
  for (const Table& t : tables) out += fmt::format("{}{} {}/{}", out.empty() ? "" : ", ", t.id, t.covered(), t.rows.size());
  std::size_t seen = 0, values = 0;
  if (const Table* e = table("enums")) {
    for (const Row& r : e->rows) {
      values += r.values.size();
      for (const auto& [v, n] : r.values) seen += n > 0;
    }
  }
  out += fmt::format(", enum values {}/{}", seen, values);
  if (!unknown.empty()) out += fmt::format(", {} not in the bundle", unknown.size());
  return out;
}

namespace {

std::string error_label(std::int64_t code, const schema::Bundle& bundle) {
  const schema::ErrorEntry* e = bundle.error(code);
  return e && !e->kind.empty() ? fmt::format("{} {}", code, e->kind) : fmt::format("{}", code);
}

class Mapper {
 public:
  explicit Mapper(const schema::Bundle& bundle) : bundle_(bundle) {
    add_table("methods", "Methods (client requests)", bundle.methods(schema::Table::methods));
    add_table("requests", "Server requests", bundle.methods(schema::Table::requests));
    add_table("notifications", "Notifications", bundle.methods(schema::Table::notifications));
    std::vector<std::string> errors;
    for (const schema::ErrorEntry& e : bundle.errors()) errors.push_back(error_label(e.code, bundle));
    add_table("errors", "Error codes", errors, /*sort=*/false);
    add_table("capabilities", "Grantable capabilities", bundle.grantable_capabilities());
    std::vector<std::string> enums;
    for (const schema::EnumDef& e : bundle.enums()) enums.push_back(e.name);
    add_table("enums", "Enums", enums);
    Table& enum_table = map_.tables.back();
    for (Row& row : enum_table.rows) {
      const schema::EnumDef* def = bundle.find_enum(row.name);
      row.detail = std::string(schema::to_string(def->openness));
      for (const json::value& v : def->values) row.values[v.is_string() ? std::string(v.get_string()) : serialize_json(v)] = 0;
    }
    if (const schema::EnumDef* kinds = bundle.find_enum("ItemKind")) {
      std::vector<std::string> names;
      for (const json::value& v : kinds->values)
        if (v.is_string()) names.emplace_back(v.get_string());
      add_table("itemKinds", "Item kinds (ItemKind)", names, /*sort=*/false);
    }
    map_.bundle = bundle.file();
  }

  void scenario(const fs::path& path) {
    auto files = locate_scenario(path);
    if (!files) {
      map_.problems.push_back(files.error());
      return;
    }
    ScenarioInfo info;
    auto kind = classify_path(path);
    info.id = kind && *kind == PathKind::transcript ? path.filename().string() : files->dir.filename().string();
    if (info.id.empty() || info.id == ".") info.id = fs::weakly_canonical(files->dir).filename().string();
    info.path = path.string();
    scenario_ = info.id;
    std::size_t frames = read(files->transcript);
    for (const fs::path& legs : files->legs) frames += read(legs);
    info.frames = frames;
    map_.scenarios.push_back(std::move(info));
  }

  CoverageMap take() { return std::move(map_); }

 private:
  void add_table(std::string id, std::string title, std::vector<std::string> names, bool sort = true) {
    if (sort) std::sort(names.begin(), names.end());
    Table t;
    t.id = std::move(id);
    t.title = std::move(title);
    for (std::string& n : names) {
      Row r;
      r.name = std::move(n);
      t.rows.push_back(std::move(r));
    }
    map_.tables.push_back(std::move(t));
  }

  Row* row(std::string_view table, std::string_view name) {
    for (Table& t : map_.tables) {
      if (t.id != table) continue;
      for (Row& r : t.rows)
        if (r.name == name) return &r;
    }
    return nullptr;
  }

  void use(Row& r) {
    ++r.frames;
    r.scenarios.insert(scenario_);
  }

  void unknown(std::string what, std::string name) {
    for (Unknown& u : map_.unknown) {
      if (u.what == what && u.name == name) {
        ++u.frames;
        u.scenarios.insert(scenario_);
        return;
      }
    }
    Unknown u;
    u.what = std::move(what);
    u.name = std::move(name);
    u.frames = 1;
    u.scenarios.insert(scenario_);
    map_.unknown.push_back(std::move(u));
  }

  void enums(const std::string* pointer, const json::value& instance) {
    if (!pointer) return;
    std::set<std::string> counted;  // a frame counts once per enum row
    bundle_.visit_enums(*pointer, instance, [&](const std::string& name, const json::value& value, bool known) {
      Row* r = row("enums", name);
      if (!r) return;
      const std::string text = value.is_string() ? std::string(value.get_string()) : serialize_json(value);
      if (known) {
        if (counted.insert(name).second) use(*r);
        ++r->values[text];
        if (name == "ItemKind")
          if (Row* k = row("itemKinds", text)) use(*k);
      } else {
        unknown("enum value", fmt::format("{}: {}", name, text));
      }
    });
  }

  std::size_t read(const fs::path& file) {
    auto reader = TranscriptReader::open(file);
    if (!reader) {
      map_.problems.push_back(reader.error());
      return 0;
    }
    Correlator correlator;
    std::size_t frames = 0;
    while (auto item = reader->next()) {
      if (!*item) {
        if (item->error().kind == ErrorKind::unreadable) map_.problems.push_back(item->error());
        continue;
      }
      const Frame& frame = **item;
      if (frame.exact_bytes) continue;
      auto value = parse_json(frame.json_text());
      if (!value) continue;
      const Envelope envelope = classify(*value);
      if (envelope.kind == FrameKind::invalid) continue;
      ++frames;
      const Correlator::Outcome outcome = correlator.observe(frame.dir, envelope, frame.line);
      const json::object& obj = value->get_object();
      if (envelope.kind == FrameKind::request || envelope.kind == FrameKind::notification) {
        const schema::Table table = schema::table_for(frame.dir, envelope.kind);
        if (Row* r = row(schema::to_string(table), envelope.method)) {
          use(*r);
          static const json::value kNoParams = json::object();
          const json::value* params = obj.if_contains("params");
          enums(bundle_.schema_pointer(table, envelope.method, "params"), params ? *params : kNoParams);
        } else {
          unknown(table == schema::Table::notifications ? "notification"
                  : table == schema::Table::methods     ? "method"
                                                        : "server request",
                  envelope.method);
        }
        continue;
      }
      const Correlator::Request* request = outcome.answered;
      const schema::Table table = request ? schema::table_for(request->dir, FrameKind::request) : schema::Table::methods;
      Row* method = request ? row(schema::to_string(table), request->method) : nullptr;
      if (envelope.is_error) {
        const json::value& error = obj.at("error");
        const json::value* code = error.is_object() ? error.get_object().if_contains("code") : nullptr;
        const std::optional<std::int64_t> code_value = code ? json_int64(*code) : std::nullopt;
        if (!code_value) continue;
        std::string label = error_label(*code_value, bundle_);
        const json::object* data = nullptr;
        if (const json::value* d = error.get_object().if_contains("data")) data = d->if_object();
        const json::value* kind = data ? data->if_contains("kind") : nullptr;
        const std::string kind_text = kind && is_json_string(*kind) ? std::string(kind->get_string()) : "";
        if (Row* r = row("errors", label)) {
          use(*r);
          if (!kind_text.empty()) ++r->values[kind_text];
        } else {
          unknown("error code", label);
        }
        if (method) {
          ++method->errors;
          const schema::ErrorEntry* entry = bundle_.error(code->get_int64());
          const bool table_kind = kind_text.empty() || (entry && entry->kind == kind_text);
          ++method->error_codes[table_kind ? label : fmt::format("{} ({})", label, kind_text)];
        }
        static const std::string kErrorObject = "#/$defs/ErrorObject";
        if (bundle_.has(kErrorObject)) enums(&kErrorObject, error);
        if (data) {
          if (const json::value* cap = data->if_contains("capability"); cap && is_json_string(*cap) && !row("capabilities", cap->get_string()))
            unknown("capability", std::string(cap->get_string()));
        }
        continue;
      }
      if (!method) continue;
      ++method->successes;
      const json::value& result = obj.at("result");
      enums(bundle_.schema_pointer(table, request->method, "result"), result);
      if (request->method == "initialize" && result.is_object()) {
        const json::value* granted = result.get_object().if_contains("grantedCapabilities");
        if (granted && granted->is_array()) {
          for (const json::value& c : granted->get_array()) {
            if (!is_json_string(c)) continue;
            if (Row* r = row("capabilities", c.get_string())) use(*r);
            else unknown("capability", std::string(c.get_string()));
          }
        }
      }
    }
    return frames;
  }

  const schema::Bundle& bundle_;
  CoverageMap map_;
  std::string scenario_;
};

}  // namespace

CoverageMap compute_coverage(const std::vector<fs::path>& paths, const schema::Bundle& bundle) {
  Mapper mapper(bundle);
  std::vector<Error> problems;
  for (const fs::path& path : paths) {
    auto kind = classify_path(path);
    if (!kind) {
      problems.push_back(kind.error());
      continue;
    }
    if (*kind != PathKind::corpus) {
      mapper.scenario(path);
      continue;
    }
    auto scenarios = list_corpus(path);
    if (!scenarios) {
      problems.push_back(scenarios.error());
      continue;
    }
    for (const fs::path& s : *scenarios) mapper.scenario(s);
  }
  CoverageMap map = mapper.take();
  map.problems.insert(map.problems.begin(), problems.begin(), problems.end());
  return map;
}

}  // namespace msptk::coverage
