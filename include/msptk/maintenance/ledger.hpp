// The acknowledgment ledger (`changelog/acknowledgments.json`) is where a corpus owner waives a
// stale fingerprint pin: an entry of kind `changelogAcknowledgment` says that manifests pinned
// at `fingerprintFrom` stay valid against the stable bundle `fingerprintTo`, for exactly the
// manifests named in `changes` (`schema/msp/transcripts/<scenario>/manifest.json`; `changes`
// may also name schema rows such as `/errors/-32603`, which waive no manifest). The ledger
// fails closed: an entry that is not exactly right (a wrong kind, a fingerprint that is not
// `sha256:<64 hex>`, empty `changes`, a `rationale` under 8 characters, a `trackingIssue` that
// is neither `#NNN` nor a URL) makes the whole ledger unusable, a usage error (exit 2) naming
// the file, the entry's line and the rule, rather than a waiver that was never meant.
#pragma once

#include "msptk/transcript/error.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::maintenance {

struct Acknowledgment {
  std::size_t index = 0;  // 0-based position in `acknowledgments`
  std::size_t line = 0;   // the line its object opens on (0 when unknown)
  std::string from, to;   // fingerprintFrom, fingerprintTo
  std::vector<std::string> changes;
  std::string rationale, tracking_issue;
};

struct Ledger {
  std::string file;     // as read ("" when there is none)
  bool present = false;  // the file exists
  std::vector<Acknowledgment> entries;

  // The first entry waiving the manifest of scenario folder `scenario_dir` pinned at `from`
  // against the stable fingerprint `to`: its `changes` name
  // `schema/msp/transcripts/<scenario_dir>/manifest.json` (or `transcripts/<…>/manifest.json`).
  const Acknowledgment* waiver(std::string_view scenario_dir, std::string_view from, std::string_view to) const;
};

// True for `sha256:` followed by 64 lowercase hex digits.
bool is_fingerprint(std::string_view text);

// Parses the ledger document `json`, whose text is `text` (for line numbers), read from `file`.
// Any rule broken is an Error of kind usage (exit 2) with file, line and rule `ledger.*`.
Result<Ledger> parse_ledger(const boost::json::value& json, std::string_view text, const std::string& file);

// Reads `path`; a ledger that does not exist is an empty one (no waivers). A file that cannot
// be read is `unreadable` (exit 3); one that is not JSON fails closed like a bad entry (exit 2).
Result<Ledger> read_ledger(const std::filesystem::path& path);

}  // namespace msptk::maintenance
