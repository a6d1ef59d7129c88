// The Redactor is the step of `msptk record --redact PATH` that keeps secrets off the disk: the
// Tee hands it every frame before the frame reaches transcript.ndjson, and it replaces the value
// at each place a redaction path selects (the path grammar of `normalize`, normalizer/path.hpp:
// `params.apiKey`, `result.account.token`, `params.headers.*`) with the string
// "<redacted:N>". N numbers the distinct values of one run in the order they were first seen
// (values are compared as canonical JSON), so equal secrets stay equal across frames, paths and
// directions and a reader can still unify them. The bytes forwarded between client and host are
// never touched; a frame in which nothing was selected is recorded byte for byte, a redacted one
// is re-serialized compactly.
//
// It also watches for credentials recorded in the clear (the heuristic of issue 13): a frame of
// an account method (`account/*` requests and notifications, and the responses to account
// requests) in which nothing was redacted, and any member of `params`, `result` or `error.data`
// (at any depth) whose name looks like a credential (`token`, `secret`, `password`, `apiKey`,
// case-insensitive, `_`/`-` ignored, as part of the name: `accessToken`, `client_secret`) whose
// value no redaction covered. Each is a CredentialWarning: stderr and `capture.redaction`.
//
// Under --redact (paths given) nothing the Redactor would replace may reach any file of the
// scenario, not only the transcript: an unterminated tail (a frame a peer never finished) is
// redacted like a frame when it parses as a JSON object, and otherwise withheld (only its size
// and SHA-256 are kept, with a warning: `redact_unterminated`); every value replaced is also
// remembered as text (`replaced_texts`), so the host's stderr log can be scrubbed of it
// (stderr_log.hpp).
#pragma once

#include "msptk/normalizer/path.hpp"
#include "msptk/transcript/error.hpp"
#include "msptk/transcript/frame.hpp"
#include "msptk/transcript/redaction.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::recorder {

struct RedactionCount {
  std::string path;          // as given
  std::uint64_t values = 0;  // values replaced at this path
};

struct CredentialWarning {
  std::size_t line = 0;  // 1-based line of `file` (0: about the whole file)
  Direction dir = Direction::client;
  std::string location;  // "params.apiKey"; "" for an account frame with nothing redacted
  std::string method;    // the account method, or ""
  std::string message;   // one sentence without the line, with the --redact that would cover it
  std::string file;      // the file of the scenario folder it is about; "" is transcript.ndjson
};

// The cheap test every frame gets before anything is parsed: true when the bytes hold
// `account/` or, case-insensitively, `token`, `secret`, `password`, `apikey`, `api_key` or
// `api-key` (a frame without any of them can give no warning and is not parsed). Scans 16
// positions at a time (SSE2) for the first three bytes of these, case-folded.
bool might_hold_credentials(std::string_view bytes);
// The same, one position at a time: the reference for the one above.
bool might_hold_credentials_scalar(std::string_view bytes);

class Redactor {
 public:
  // Parses the paths (usage errors name the path and position). No paths: a Redactor that only
  // watches for credentials.
  static Result<Redactor> create(const std::vector<std::string>& paths);

  // The bytes to record for frame `bytes` (a trailing CR of a client frame is kept), which will
  // be line `line` of the transcript. Returns nullopt when the frame is to be recorded as it is.
  std::optional<std::string> redact(Direction dir, std::string_view bytes, std::size_t line);

  // The bytes to keep of direction `dir`'s unterminated tail: redacted as a frame is (or as
  // they are when nothing is selected) when they parse as a JSON object; nullopt when they do
  // not — they are to be withheld, and a warning says so (as withhold_unterminated does).
  std::optional<std::string> redact_unterminated(Direction dir, std::string_view bytes);
  // Records the warning that `bytes` bytes of direction `dir`'s unterminated tail were withheld.
  void withhold_unterminated(Direction dir, std::uint64_t bytes);
  // A warning about a line of another file of the scenario (host-stderr.log).
  void warn(CredentialWarning warning) { warnings_.push_back(std::move(warning)); }

  // Every value replaced so far, as the texts it may appear as elsewhere (a string's characters
  // and its JSON-escaped spelling; another value's JSON), each with its placeholder.
  const std::vector<std::pair<std::string, std::string>>& replaced_texts() const { return texts_; }

  bool active() const { return !paths_.empty(); }
  const std::vector<RedactionCount>& counts() const { return counts_; }
  std::size_t distinct_values() const { return placeholders_.size(); }
  const std::vector<CredentialWarning>& warnings() const { return warnings_; }

 private:
  std::vector<JsonPath> paths_;
  std::vector<RedactionCount> counts_;
  std::map<std::string, std::size_t> placeholders_;  // canonical JSON of a value -> N
  std::set<std::string> account_requests_;           // id keys of client account/* requests
  std::set<std::string> account_server_requests_;    // id keys of server account/* requests
  std::vector<CredentialWarning> warnings_;
  std::vector<std::pair<std::string, std::string>> texts_;  // text of a replaced value -> its placeholder

  // Replaces the selected values of `value`; the locations replaced.
  std::set<std::string> replace_selected(boost::json::value& value);
};

}  // namespace msptk::recorder
