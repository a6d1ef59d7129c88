#include "msptk/normalizer/registry.hpp"

#include "msptk/normalizer/canonical.hpp"
#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/json_locate.hpp"
#include "msptk/transcript/json_parse.hpp"

#include <fmt/format.h>

#include <cctype>

namespace msptk {

namespace json = boost::json;

std::string_view to_string(MaskMode mode) { return mode == MaskMode::unify ? "unify" : "erase"; }

std::optional<MaskMode> parse_mask_mode(std::string_view text) {
  if (text == "unify") return MaskMode::unify;
  if (text == "erase") return MaskMode::erase;
  return std::nullopt;
}

std::string_view to_string(ValueCheck check) {
  switch (check) {
    case ValueCheck::uuid: return "uuid";
    case ValueCheck::rfc3339: return "rfc3339";
    case ValueCheck::non_negative_integer: return "non-negative-integer";
    case ValueCheck::none: break;
  }
  return "none";
}

std::string_view to_string(const PathCompare& compare) {
  if (compare.check != ValueCheck::none) return to_string(compare.check);
  return to_string(compare.mode);
}

std::optional<PathCompare> parse_path_compare(std::string_view text) {
  if (auto mode = parse_mask_mode(text)) return PathCompare{*mode, ValueCheck::none};
  for (ValueCheck check : {ValueCheck::uuid, ValueCheck::rfc3339, ValueCheck::non_negative_integer})
    if (text == to_string(check)) return PathCompare{MaskMode::erase, check};
  return std::nullopt;
}

namespace {

bool hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool digit(char c) { return c >= '0' && c <= '9'; }

bool is_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return false;
    } else if (!hex(s[i])) {
      return false;
    }
  }
  return true;
}

bool digits(std::string_view s, std::size_t at, std::size_t n) {
  if (at + n > s.size()) return false;
  for (std::size_t i = at; i < at + n; ++i)
    if (!digit(s[i])) return false;
  return true;
}

// RFC 3339 date-time: YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM), 't'/'z' accepted.
bool is_rfc3339(std::string_view s) {
  if (!digits(s, 0, 4) || s.size() < 20 || s[4] != '-' || !digits(s, 5, 2) || s[7] != '-' || !digits(s, 8, 2)) return false;
  if (s[10] != 'T' && s[10] != 't' && s[10] != ' ') return false;
  if (!digits(s, 11, 2) || s[13] != ':' || !digits(s, 14, 2) || s[16] != ':' || !digits(s, 17, 2)) return false;
  std::size_t i = 19;
  if (i < s.size() && s[i] == '.') {
    ++i;
    const std::size_t start = i;
    while (i < s.size() && digit(s[i])) ++i;
    if (i == start) return false;
  }
  if (i == s.size()) return false;
  if (s[i] == 'Z' || s[i] == 'z') return i + 1 == s.size();
  if (s[i] != '+' && s[i] != '-') return false;
  return i + 6 == s.size() && digits(s, i + 1, 2) && s[i + 3] == ':' && digits(s, i + 4, 2);
}

}  // namespace

bool satisfies(ValueCheck check, const json::value& value) {
  switch (check) {
    case ValueCheck::none: return true;
    case ValueCheck::uuid: return is_json_string(value) && is_uuid(value.get_string());
    case ValueCheck::rfc3339: return is_json_string(value) && is_rfc3339(value.get_string());
    case ValueCheck::non_negative_integer:
      return value.is_uint64() || (value.is_int64() && value.get_int64() >= 0);
  }
  return false;
}

Registry Registry::builtin() {
  Registry registry;
  for (const char* path : {"id", "params.commandId", "params.turnId", "params.itemId", "result.session.sessionId"}) {
    (void)registry.add(path);
  }
  return registry;
}

std::size_t Registry::index_of(std::string_view path) const {
  for (std::size_t i = 0; i < paths_.size(); ++i)
    if (paths_[i].text() == path) return i;
  return paths_.size();
}

Result<void> Registry::add(std::string_view text) {
  auto path = JsonPath::parse(text);
  if (!path) return path.error();
  if (!contains(text)) {
    paths_.push_back(std::move(*path));
    compares_.push_back(PathCompare{});
    declared_.push_back(false);
  }
  return {};
}

Result<void> Registry::declare(std::string_view text, PathCompare compare) {
  if (auto added = add(text); !added) return added;
  const std::size_t i = index_of(text);
  compares_[i] = compare;
  declared_[i] = true;
  return {};
}

Result<void> Registry::extend_from_file(const std::filesystem::path& file) {
  auto read = read_file(file);
  if (!read) return read.error();
  auto value = parse_json_text(*read, file.string());
  if (!value) return value.error();
  const std::string name = file.string();
  if (const json::object* obj = value->if_object()) {
    // The corpus file's shape (corpus_file.hpp): {"kind": "msptkCorpus", "paths": {PATH: HOW}}.
    for (const auto& member : *obj) {
      if (member.key() != "kind" && member.key() != "paths")
        return Error::malformed(name, line_of_path(*read, member.key()), "corpus.member",
                                fmt::format("unknown member \"{}\" (a corpus file has \"kind\" and \"paths\")",
                                            std::string_view(member.key())));
    }
    if (const json::value* kind = obj->if_contains("kind"); kind && !(is_json_string(*kind) && kind->get_string() == "msptkCorpus"))
      return Error::malformed(name, line_of_path(*read, "kind"), "corpus.kind", "\"kind\" is \"msptkCorpus\"");
    const json::value* paths = obj->if_contains("paths");
    if (!paths || !paths->is_object())
      return Error::malformed(name, paths ? line_of_path(*read, "paths") : 1, "corpus.paths",
                              "\"paths\" is an object mapping each declared path to how it is compared (\"unify\", "
                              "\"erase\", \"uuid\", \"rfc3339\", \"non-negative-integer\")");
    const std::size_t line = line_of_path(*read, "paths");
    for (const auto& member : paths->get_object()) {
      const std::string path(member.key());
      std::optional<PathCompare> how;
      if (is_json_string(member.value())) how = parse_path_compare(member.value().get_string());
      if (!how)
        return Error::malformed(name, line, "corpus.compare",
                                fmt::format("paths[\"{}\"] is {}: it is one of \"unify\", \"erase\", \"uuid\", \"rfc3339\", "
                                            "\"non-negative-integer\"",
                                            path, compact_json(member.value())));
      if (auto added = declare(path, *how); !added) {
        Error error = added.error();
        error.file = name;
        error.line = line;
        return error;
      }
    }
    return {};
  }
  const json::array* arr = value->if_array();
  if (!arr)
    return Error::malformed(name, 1, "registry.type",
                            "a registry file is a JSON array of path strings, or a corpus file ({\"paths\": {...}})");
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const json::value& entry = (*arr)[i];
    if (!is_json_string(entry)) {
      return Error::malformed(name, 1, "registry.type", fmt::format("entry {} is not a string", i));
    }
    if (auto added = add(entry.get_string()); !added) {
      Error error = added.error();
      error.file = name;
      return error;
    }
  }
  return {};
}

bool Registry::contains(std::string_view path) const { return index_of(path) < paths_.size(); }

PathCompare Registry::compare_of(std::string_view path) const {
  const std::size_t i = index_of(path);
  return i < paths_.size() ? compares_[i] : PathCompare{};
}

bool Registry::compare_declared(std::string_view path) const {
  const std::size_t i = index_of(path);
  return i < paths_.size() && declared_[i];
}

void Registry::merge(const Registry& over) {
  for (std::size_t i = 0; i < over.paths_.size(); ++i) {
    const std::string& text = over.paths_[i].text();
    if (over.declared_[i]) (void)declare(text, over.compares_[i]);
    else (void)add(text);
  }
  if (!over.add_to_.empty()) add_to_ = over.add_to_;
}

}  // namespace msptk
