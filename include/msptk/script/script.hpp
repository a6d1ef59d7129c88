// A Script is what `msptk record --script` plays as the client of a live host: an NDJSON file,
// one step a line (docs/script.md has the grammar and examples). Each step is a JSON object
// named by exactly one of its members:
//
//   {"handshake": PARAMS}                      initialize with PARAMS (clientInfo...), its response,
//                                              then the initialized notification
//   {"request": METHOD, "params": P}           a request; msptk mints its id (1, 2, ...)
//   {"command": METHOD, "params": P}           a request that also gets a minted params.commandId
//                                              (a UUIDv7 from the seed) when P leaves it out
//   {"notify": METHOD, "params": P}            a notification
//   {"send": FRAME}                            a client frame written out whole (nothing minted)
//   {"answer": METHOD, "result": R}            reply to the host's next request of METHOD, echoing
//   {"answer": METHOD, "error": E}             its id ("always": true: every one from now on)
//   {"wait": METHOD, "where": {PATH: V, ...}}  until a server frame of METHOD (with V at each PATH)
//   {"quiet": MS}                              until the host has written nothing for MS ms
//
// A request (handshake, request, command, a `send` of a request) waits for its response before
// the next step unless it says "wait": false (pipelining); "name": N lets later steps refer to
// its response. Any string value "${N:PATH}" in a later step is replaced by the value at PATH
// (normalize's JsonPath grammar) of the response to the step named N, and "${last METHOD:PATH}"
// by the value at PATH of the latest server frame of METHOD; "$${" spells a literal "${".
// Waits, answers and responses time out after "timeoutMs" (default kDefaultTimeoutMs).
// Blank lines and lines starting with '#' are ignored.
//
// Parsing checks everything that can be known without a host: JSON, step kinds and members,
// frames, references (syntax, path grammar, a name an earlier request step declares). The
// first problem is an Error of kind usage naming the script's file, line and rule (script.*).
#pragma once

#include "msptk/normalizer/path.hpp"
#include "msptk/transcript/error.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace msptk::script {

inline constexpr int kDefaultTimeoutMs = 10000;
inline constexpr int kMaxTimeoutMs = 86400000;

enum class StepKind { handshake, request, notify, send, answer, wait, quiet };

std::string_view to_string(StepKind kind);

struct Step {
  StepKind kind = StepKind::request;
  std::size_t line = 0;   // 1-based line of the script
  std::string name;       // "name": a request step later references name
  std::string method;     // request, notify, answer, wait
  // request/notify: "params" (has_params false: none sent); handshake: initialize's params;
  // send: the frame; answer: the result, or the error when is_error. May hold references.
  boost::json::value body;
  bool has_params = false;
  // a request: its id ("id", or the frame's: an integer of 64 bits or a string), else minted
  // when parsed: 1 + the largest integer id of the steps before it (at least 1; a script whose
  // integer ids reach INT64_MAX mints none after them: script.id-range)
  std::optional<boost::json::value> id;
  bool command = false;        // mint params.commandId when the params leave it out
  bool wait_response = true;   // a request: wait for its response before the next step
  bool is_request = false;     // handshake, request, or a send whose frame is a request
  bool is_error = false;       // answer: reply with an error object
  bool always = false;         // answer: every request of the method from now on
  std::vector<std::pair<JsonPath, boost::json::value>> where;  // wait: values required at paths
  int quiet_ms = 0;
  int timeout_ms = kDefaultTimeoutMs;
};

struct Script {
  std::string file;  // as named on the command line (errors name it)
  std::vector<Step> steps;
  std::string sha256;  // of the script's bytes (capture.script)

  // The step a reference's name designates (a request step declaring it), or null.
  const Step* named(std::string_view name) const;
  // How many commandIds the play mints: command steps whose params leave commandId out.
  std::size_t minted_command_ids() const;
};

// Parses a script's text. Errors: kind usage, file `file`, the line, rule script.*.
Result<Script> parse_script(std::string_view text, std::string file);

// Reads and parses the script file (unreadable: exit 3; anything else as parse_script).
Result<Script> read_script(const std::filesystem::path& path);

// The rules a script can break before it runs (parse_script) and while it runs (the player),
// each with its statement, as docs/script.md lists them.
struct ScriptRule {
  std::string_view id, statement;
};
const std::vector<ScriptRule>& script_rules();

}  // namespace msptk::script
