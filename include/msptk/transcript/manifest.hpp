// Manifest is the model of a scenario's manifest.json (FORMAT.md): provenance and pins of one
// recorded connection. Parsing is lenient and complete: every problem is collected with the
// member it concerns, so a validator can report them all, and members msptk does not know are
// kept and written back unchanged when a manifest is rewritten. Writes are atomic.
#pragma once

#include "msptk/transcript/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk {

inline constexpr std::int64_t kDefaultFrameLimitBytes = 10485760;
inline constexpr std::int64_t kDefaultIdSeed = 7;
inline constexpr std::int64_t kDefaultClockStartMs = 1754590931000;

struct SourceRange {
  std::string lines;  // as written: "1-3", "11" or a list such as "1,3"
  std::string cite;
  std::size_t first = 0, last = 0;  // parsed 1-based bounds (0 when unparsable)
};

struct RegenerationJustification {
  std::string cite, rationale, tracking_issue;
  boost::json::object extra;  // tolerated extra members
};

// The one rule for a justification member, wherever one is read or asked for (the manifest's
// `manifest.regeneration` rule, hence validate and regen; review's accept): blank — empty, or
// only spaces, tabs, CR, LF, FF, VT — is empty.
bool is_blank(std::string_view text);
// The first member of `j` that is blank ("cite", "rationale", "trackingIssue"), if any.
std::optional<std::string_view> blank_justification_member(const RegenerationJustification& j);

struct Manifest {
  std::string kind = "mspTranscript";
  std::int64_t schema_version = 1;
  std::string scenario;
  std::string provenance;  // hand-authored | host-generated | sdk-tolerance
  std::optional<RegenerationJustification> regeneration_justification;
  std::string fingerprint;  // sha256:<64 hex>
  std::int64_t view_schema_version = 1;
  std::int64_t frame_limit_bytes = kDefaultFrameLimitBytes;
  boost::json::object server_config_extra;  // serverConfig members other than frameLimitBytes
  std::vector<std::string> transports;
  std::vector<std::string> normalize;
  std::int64_t id_seed = kDefaultIdSeed;
  std::int64_t clock_start_ms = kDefaultClockStartMs;
  boost::json::object seeds_extra;  // seeds members other than idSeed/clockStartMs (the corpus has `note`)
  std::vector<SourceRange> source;
  std::optional<boost::json::object> capture;  // written by `msptk record`
  boost::json::object extra;                   // unknown members, preserved

  bool is_sdk_tolerance() const { return provenance == "sdk-tolerance"; }

  boost::json::value to_json() const;
};

// One thing wrong with a manifest taken alone: the member path ("serverConfig.frameLimitBytes"),
// the rule and why. Rules that need context (folder name, transcript length, registry) are the
// validator's.
struct ManifestProblem {
  std::string member;
  std::string rule;  // stable rule id, e.g. "manifest.required", "manifest.fingerprint"
  std::string message;
};

struct ManifestParse {
  Manifest manifest;                      // best effort: defaults where members were bad
  std::vector<ManifestProblem> problems;  // empty when the manifest is well-formed
};

ManifestParse parse_manifest(const boost::json::value& json);

// Reads and parses manifest.json. Fails (unreadable / malformed) only when the file cannot be
// read or is not a JSON object; member problems are returned in the parse.
Result<ManifestParse> read_manifest(const std::filesystem::path& path);
// The same for manifest bytes already read from `file`.
Result<ManifestParse> parse_manifest_text(std::string_view text, const std::string& file);

// Writes the manifest as indented JSON through a temporary file and a rename.
Result<void> write_manifest(const std::filesystem::path& path, const Manifest& manifest,
                            std::filesystem::perms perms = std::filesystem::perms::owner_read |
                                                           std::filesystem::perms::owner_write |
                                                           std::filesystem::perms::group_read |
                                                           std::filesystem::perms::others_read);

}  // namespace msptk
