// The acknowledgment ledger, read fail-closed (ledger.hpp).
#include "msptk/maintenance/ledger.hpp"
#include "brief.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/json_locate.hpp"

#include <boost/json.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace msptk::maintenance {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr std::string_view kEntryKind = "changelogAcknowledgment";
constexpr std::size_t kMinRationale = 8;

Error broken(const std::string& file, std::size_t line, std::string rule, std::string message) {
  return Error{ErrorKind::usage, fmt::format("acknowledgment ledger fails closed: {}", message), file, line,
               std::move(rule)};
}

// The line each object directly inside a top-level array opens on, in order.
std::vector<std::size_t> entry_lines(std::string_view text) {
  std::vector<std::size_t> lines;
  std::vector<char> stack;
  std::size_t line = 1;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (c == '\n') ++line;
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') {
      if (c == '{' && stack.size() == 2 && stack[0] == '{' && stack[1] == '[') lines.push_back(line);
      stack.push_back(c);
    } else if ((c == '}' || c == ']') && !stack.empty()) {
      stack.pop_back();
    }
  }
  return lines;
}

std::size_t code_points(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// ECMAScript's \s as the ledger's rule meant it (space, tab, LF, VT, FF, CR).
bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// "#NNN", or "http://" / "https://" then a host (a first character that is neither space nor
// '/', '?', '#') and no space after it: one pass over the text, no regular expression (a
// backtracking matcher recursed once per character and crashed on a long trackingIssue).
bool is_tracking_issue(std::string_view s) {
  if (s.starts_with('#'))
    return s.size() > 1 && std::all_of(s.begin() + 1, s.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (s.starts_with("https://")) s.remove_prefix(8);
  else if (s.starts_with("http://")) s.remove_prefix(7);
  else return false;
  if (s.empty() || s.front() == '/' || s.front() == '?' || s.front() == '#') return false;
  return std::none_of(s.begin(), s.end(), is_space);
}

const json::string* string_member(const json::object& o, std::string_view name) {
  const json::value* v = o.if_contains(name);
  return v && v->is_string() ? &v->get_string() : nullptr;
}

// "schema/msp/transcripts/X/manifest.json" or "transcripts/X/manifest.json" (a leading "./" aside).
bool names_manifest(std::string_view change, std::string_view scenario_dir) {
  if (change.starts_with("./")) change.remove_prefix(2);
  if (change.starts_with("schema/msp/")) change.remove_prefix(11);
  if (!change.starts_with("transcripts/")) return false;
  change.remove_prefix(12);
  return change.size() == scenario_dir.size() + 14 && change.starts_with(scenario_dir) &&
         change.substr(scenario_dir.size()) == "/manifest.json";
}

}  // namespace

bool is_fingerprint(std::string_view text) {
  if (text.size() != 7 + 64 || !text.starts_with("sha256:")) return false;
  for (char c : text.substr(7))
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

const Acknowledgment* Ledger::waiver(std::string_view scenario_dir, std::string_view from, std::string_view to) const {
  for (const Acknowledgment& a : entries) {
    if (a.from != from || a.to != to) continue;
    for (const std::string& change : a.changes)
      if (names_manifest(change, scenario_dir)) return &a;
  }
  return nullptr;
}

Result<Ledger> parse_ledger(const json::value& doc, std::string_view text, const std::string& file) {
  Ledger ledger;
  ledger.file = file;
  ledger.present = true;
  if (!doc.is_object()) return broken(file, 1, "ledger.document", "the ledger is not a JSON object");
  const json::object& top = doc.get_object();
  if (const json::value* kind = top.if_contains("kind"); kind && !(kind->is_string() && *kind == "mspChangelog"))
    return broken(file, line_of_path(text, "kind"), "ledger.document",
                  fmt::format("kind is {}, expected \"mspChangelog\"", detail::brief(*kind)));
  const json::value* list = top.if_contains("acknowledgments");
  if (!list || !list->is_array())
    return broken(file, list ? line_of_path(text, "acknowledgments") : 1, "ledger.document",
                  "the ledger has no \"acknowledgments\" array");
  const std::vector<std::size_t> lines = entry_lines(text);
  const json::array& entries = list->get_array();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::size_t line = i < lines.size() && lines.size() == entries.size() ? lines[i] : 0;
    const std::string where = fmt::format("entry {}", i + 1);
    if (!entries[i].is_object()) return broken(file, line, "ledger.entry", fmt::format("{} is not an object", where));
    const json::object& e = entries[i].get_object();
    Acknowledgment a;
    a.index = i;
    a.line = line;
    const json::string* kind = string_member(e, "kind");
    if (!kind || *kind != kEntryKind)
      return broken(file, line, "ledger.kind",
                    fmt::format("{}: kind must be \"{}\", got {}", where, kEntryKind,
                                e.contains("kind") ? detail::brief(e.at("kind")) : std::string("nothing")));
    for (auto [member, out] : {std::pair{"fingerprintFrom", &a.from}, std::pair{"fingerprintTo", &a.to}}) {
      const json::string* f = string_member(e, member);
      if (!f || !is_fingerprint(*f))
        return broken(file, line, "ledger.fingerprint",
                      fmt::format("{}: {} must be \"sha256:\" and 64 lowercase hex digits, got {}", where, member,
                                  e.contains(member) ? detail::brief(e.at(member)) : std::string("nothing")));
      *out = std::string(*f);
    }
    const json::value* changes = e.if_contains("changes");
    if (!changes || !changes->is_array() || changes->get_array().empty())
      return broken(file, line, "ledger.changes",
                    fmt::format("{}: changes must be a non-empty array of the manifests (or schema rows) it waives",
                                where));
    for (const json::value& c : changes->get_array()) {
      if (!c.is_string() || c.get_string().empty())
        return broken(file, line, "ledger.changes",
                      fmt::format("{}: every change must be a non-empty string, got {}", where, detail::brief(c)));
      a.changes.emplace_back(c.get_string());
    }
    const json::string* rationale = string_member(e, "rationale");
    if (!rationale || code_points(trimmed(*rationale)) < kMinRationale)
      return broken(file, line, "ledger.rationale",
                    fmt::format("{}: rationale must be a string of at least {} characters", where, kMinRationale));
    a.rationale = std::string(*rationale);
    const json::string* issue = string_member(e, "trackingIssue");
    if (!issue || !is_tracking_issue(*issue))
      return broken(file, line, "ledger.tracking-issue",
                    fmt::format("{}: trackingIssue must be \"#NNN\" or a URL, got {}", where,
                                e.contains("trackingIssue") ? detail::brief(e.at("trackingIssue"))
                                                            : std::string("nothing")));
    a.tracking_issue = std::string(*issue);
    ledger.entries.push_back(std::move(a));
  }
  return ledger;
}

Result<Ledger> read_ledger(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Ledger{};
  auto text = read_file(path);
  if (!text) return text.error();
  auto doc = parse_json_file(path);
  if (!doc) {
    Error e = doc.error();
    if (e.kind == ErrorKind::unreadable) return e;
    return broken(path.string(), e.line, "ledger.json", fmt::format("not JSON: {}", e.message));
  }
  return parse_ledger(*doc, *text, path.string());
}

}  // namespace msptk::maintenance
