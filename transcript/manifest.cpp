#include "msptk/transcript/manifest.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/transcript/json_io.hpp"

#include <boost/json/serialize.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace msptk {

bool is_blank(std::string_view text) { return text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos; }

std::optional<std::string_view> blank_justification_member(const RegenerationJustification& j) {
  if (is_blank(j.cite)) return "cite";
  if (is_blank(j.rationale)) return "rationale";
  if (is_blank(j.tracking_issue)) return "trackingIssue";
  return std::nullopt;
}

namespace json = boost::json;

namespace {

const char* const kKnownMembers[] = {"kind",        "schemaVersion", "scenario",  "provenance",
                                     "regenerationJustification", "fingerprint", "viewSchemaVersion",
                                     "serverConfig", "transports",   "normalize", "seeds",
                                     "source",      "capture"};

bool is_known(std::string_view key) {
  for (const char* k : kKnownMembers)
    if (key == k) return true;
  return false;
}

class Parser {
 public:
  explicit Parser(std::vector<ManifestProblem>& problems) : problems_(problems) {}

  void problem(std::string member, std::string rule, std::string message) {
    problems_.push_back({std::move(member), std::move(rule), std::move(message)});
  }

  const json::value* required(const json::object& obj, std::string_view key, std::string_view path) {
    const json::value* v = obj.if_contains(key);
    if (!v) problem(std::string(path), "manifest.required", fmt::format("missing required member \"{}\"", path));
    return v;
  }

  bool get_string(const json::object& obj, std::string_view key, std::string_view path, std::string& out,
                  bool is_required = true) {
    const json::value* v = is_required ? required(obj, key, path) : obj.if_contains(key);
    if (!v) return false;
    if (!is_json_string(*v)) {
      problem(std::string(path), "manifest.type", fmt::format("\"{}\" must be a string", path));
      return false;
    }
    out = std::string(v->get_string());
    return true;
  }

  bool get_int(const json::object& obj, std::string_view key, std::string_view path, std::int64_t& out) {
    const json::value* v = required(obj, key, path);
    if (!v) return false;
    if (v->is_int64()) {
      out = v->get_int64();
      return true;
    }
    if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
      out = static_cast<std::int64_t>(v->get_uint64());
      return true;
    }
    problem(std::string(path), "manifest.type", fmt::format("\"{}\" must be an integer", path));
    return false;
  }

  void get_string_array(const json::object& obj, std::string_view key, std::vector<std::string>& out) {
    const json::value* v = required(obj, key, key);
    if (!v) return;
    const json::array* arr = v->if_array();
    if (!arr) {
      problem(std::string(key), "manifest.type", fmt::format("\"{}\" must be an array of strings", key));
      return;
    }
    for (std::size_t i = 0; i < arr->size(); ++i) {
      if (!is_json_string((*arr)[i])) {
        problem(fmt::format("{}[{}]", key, i), "manifest.type", fmt::format("\"{}[{}]\" must be a string", key, i));
        continue;
      }
      out.emplace_back((*arr)[i].get_string());
    }
  }

 private:
  std::vector<ManifestProblem>& problems_;
};

// "N", "N-M" or a comma-separated list of those ("1,3", "2-4, 7"); first/last span them all.
bool parse_line_range(std::string_view text, std::size_t& first, std::size_t& last) {
  auto number = [](std::string_view s, std::size_t& out) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && ptr == s.data() + s.size() && out > 0;
  };
  first = SIZE_MAX;
  last = 0;
  while (true) {
    std::size_t comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    std::size_t a = 0, b = 0;
    std::size_t dash = part.find('-');
    if (dash == std::string_view::npos) {
      if (!number(part, a)) return false;
      b = a;
    } else if (!number(part.substr(0, dash), a) || !number(part.substr(dash + 1), b) || a > b) {
      return false;
    }
    first = std::min(first, a);
    last = std::max(last, b);
    if (comma == std::string_view::npos) return true;
    text.remove_prefix(comma + 1);
  }
}

bool is_fingerprint(std::string_view text) {
  if (text.size() != 7 + 64 || text.substr(0, 7) != "sha256:") return false;
  for (char c : text.substr(7))
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

ManifestParse parse_manifest(const json::value& value) {
  ManifestParse out;
  Manifest& m = out.manifest;
  Parser p(out.problems);
  const json::object* obj = value.if_object();
  if (!obj) {
    p.problem("", "manifest.type", "manifest is not a JSON object");
    return out;
  }
  if (p.get_string(*obj, "kind", "kind", m.kind) && m.kind != "mspTranscript") {
    p.problem("kind", "manifest.kind", fmt::format("\"kind\" must be \"mspTranscript\", got \"{}\"", m.kind));
  }
  if (p.get_int(*obj, "schemaVersion", "schemaVersion", m.schema_version) && m.schema_version != 1) {
    p.problem("schemaVersion", "manifest.schema-version",
              fmt::format("unsupported schemaVersion {} (msptk reads version 1)", m.schema_version));
  }
  p.get_string(*obj, "scenario", "scenario", m.scenario);
  if (p.get_string(*obj, "provenance", "provenance", m.provenance) && m.provenance != "hand-authored" &&
      m.provenance != "host-generated" && m.provenance != "sdk-tolerance") {
    p.problem("provenance", "manifest.provenance",
              fmt::format("provenance \"{}\" is not one of hand-authored, host-generated, sdk-tolerance", m.provenance));
  }
  if (const json::value* rj = obj->if_contains("regenerationJustification")) {
    if (const json::object* rjo = rj->if_object()) {
      RegenerationJustification r;
      const std::pair<const char*, std::string*> fields[] = {
          {"cite", &r.cite}, {"rationale", &r.rationale}, {"trackingIssue", &r.tracking_issue}};
      for (auto [key, dest] : fields) {
        std::string path = fmt::format("regenerationJustification.{}", key);
        const json::value* v = rjo->if_contains(key);
        if (!v || !is_json_string(*v) || is_blank(v->get_string())) {
          p.problem(path, "manifest.regeneration",
                    fmt::format("\"{}\" must be a non-empty string when regenerationJustification is present (blank "
                                "counts as empty)",
                                path));
        } else {
          *dest = std::string(v->get_string());
        }
      }
      for (const auto& member : *rjo) {
        std::string_view k = member.key();
        if (k != "cite" && k != "rationale" && k != "trackingIssue") r.extra.emplace(k, member.value());
      }
      m.regeneration_justification = std::move(r);
    } else {
      p.problem("regenerationJustification", "manifest.type", "\"regenerationJustification\" must be an object");
    }
  }
  if (p.get_string(*obj, "fingerprint", "fingerprint", m.fingerprint) && !is_fingerprint(m.fingerprint)) {
    p.problem("fingerprint", "manifest.fingerprint",
              fmt::format("fingerprint \"{}\" is not sha256:<64 lowercase hex>", m.fingerprint));
  }
  p.get_int(*obj, "viewSchemaVersion", "viewSchemaVersion", m.view_schema_version);
  if (const json::value* sc = p.required(*obj, "serverConfig", "serverConfig")) {
    if (const json::object* sco = sc->if_object()) {
      if (p.get_int(*sco, "frameLimitBytes", "serverConfig.frameLimitBytes", m.frame_limit_bytes) &&
          m.frame_limit_bytes <= 0) {
        p.problem("serverConfig.frameLimitBytes", "manifest.frame-limit",
                  fmt::format("serverConfig.frameLimitBytes must be a positive integer, got {}", m.frame_limit_bytes));
        m.frame_limit_bytes = kDefaultFrameLimitBytes;
      }
      for (const auto& member : *sco)
        if (member.key() != "frameLimitBytes") m.server_config_extra.emplace(member.key(), member.value());
    } else {
      p.problem("serverConfig", "manifest.type", "\"serverConfig\" must be an object");
    }
  }
  p.get_string_array(*obj, "transports", m.transports);
  p.get_string_array(*obj, "normalize", m.normalize);
  if (const json::value* seeds = p.required(*obj, "seeds", "seeds")) {
    if (const json::object* so = seeds->if_object()) {
      p.get_int(*so, "idSeed", "seeds.idSeed", m.id_seed);
      p.get_int(*so, "clockStartMs", "seeds.clockStartMs", m.clock_start_ms);
      for (const auto& member : *so)
        if (member.key() != "idSeed" && member.key() != "clockStartMs") m.seeds_extra.emplace(member.key(), member.value());
    } else {
      p.problem("seeds", "manifest.type", "\"seeds\" must be an object");
    }
  }
  if (const json::value* source = p.required(*obj, "source", "source")) {
    if (const json::array* arr = source->if_array()) {
      for (std::size_t i = 0; i < arr->size(); ++i) {
        std::string path = fmt::format("source[{}]", i);
        const json::object* entry = (*arr)[i].if_object();
        if (!entry) {
          p.problem(path, "manifest.type", fmt::format("\"{}\" must be an object", path));
          continue;
        }
        SourceRange range;
        bool ok = p.get_string(*entry, "lines", path + ".lines", range.lines);
        p.get_string(*entry, "cite", path + ".cite", range.cite);
        if (ok && !parse_line_range(range.lines, range.first, range.last)) {
          p.problem(path + ".lines", "manifest.source",
                    fmt::format("\"{}.lines\" must be \"N\", \"N-M\" (1 <= N <= M) or a comma-separated list of those, got \"{}\"", path, range.lines));
        }
        m.source.push_back(std::move(range));
      }
    } else {
      p.problem("source", "manifest.type", "\"source\" must be an array");
    }
  }
  // shrunkFrom (written by `msptk shrink`: where a shrunk scenario came from) is kept with the
  // other members msptk does not model (`extra`), so it survives a rewrite; its shape is checked.
  if (const json::value* shrunk = obj->if_contains("shrunkFrom")) {
    const json::object* from = shrunk->if_object();
    const json::value* scenario = from ? from->if_contains("scenario") : nullptr;
    if (!scenario || !scenario->is_string())
      p.problem("shrunkFrom", "manifest.type", "\"shrunkFrom\" must be an object with a string \"scenario\"");
  }
  if (const json::value* capture = obj->if_contains("capture")) {
    if (capture->is_object()) {
      m.capture = capture->get_object();
    } else {
      p.problem("capture", "manifest.type", "\"capture\" must be an object");
    }
  }
  for (const auto& member : *obj)
    if (!is_known(member.key())) m.extra.emplace(member.key(), member.value());
  return out;
}

json::value Manifest::to_json() const {
  json::object obj;
  obj["kind"] = kind;
  obj["schemaVersion"] = schema_version;
  obj["scenario"] = scenario;
  obj["provenance"] = provenance;
  if (regeneration_justification) {
    json::object rj;
    rj["cite"] = regeneration_justification->cite;
    rj["rationale"] = regeneration_justification->rationale;
    rj["trackingIssue"] = regeneration_justification->tracking_issue;
    for (const auto& member : regeneration_justification->extra) rj.emplace(member.key(), member.value());
    obj["regenerationJustification"] = std::move(rj);
  }
  obj["fingerprint"] = fingerprint;
  obj["viewSchemaVersion"] = view_schema_version;
  json::object sc;
  sc["frameLimitBytes"] = frame_limit_bytes;
  for (const auto& member : server_config_extra) sc.emplace(member.key(), member.value());
  obj["serverConfig"] = std::move(sc);
  json::array tr;
  for (const auto& t : transports) tr.emplace_back(t);
  obj["transports"] = std::move(tr);
  json::array norm;
  for (const auto& n : normalize) norm.emplace_back(n);
  obj["normalize"] = std::move(norm);
  json::object seeds{{"idSeed", id_seed}, {"clockStartMs", clock_start_ms}};
  for (const auto& member : seeds_extra) seeds.emplace(member.key(), member.value());
  obj["seeds"] = std::move(seeds);
  json::array src;
  for (const auto& s : source) src.emplace_back(json::object{{"lines", s.lines}, {"cite", s.cite}});
  obj["source"] = std::move(src);
  if (capture) obj["capture"] = *capture;
  for (const auto& member : extra) obj.emplace(member.key(), member.value());
  return obj;
}

Result<ManifestParse> read_manifest(const std::filesystem::path& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  return parse_manifest_text(*text, path.string());
}

Result<ManifestParse> parse_manifest_text(std::string_view text, const std::string& file) {
  auto value = parse_json_text(text, file);
  if (!value) return value.error();
  if (!value->is_object()) {
    return Error::malformed(file, 1, "manifest.type", "manifest is not a JSON object");
  }
  return parse_manifest(*value);
}

Result<void> write_manifest(const std::filesystem::path& path, const Manifest& manifest, std::filesystem::perms perms) {
  return write_file_atomic(path, pretty(manifest.to_json()), perms);
}

}  // namespace msptk
