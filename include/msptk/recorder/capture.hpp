// The `capture` member `msptk record` adds to a scenario's manifest.json: how the recording
// was made and what the recorder saw on the wire, so a reader (and `validate`) can tell a
// clean capture from one that lost a host mid-frame. Its shape (all members always present):
//
//   "capture": {
//     "recorder": "msptk record",
//     "status": "recording" | "complete",     // "recording": the recorder itself died;
//                                             // "incomplete": record --script stopped at a step
//     "script": {...},                        // record --script only (script/scripted_record.hpp)
//     "host": { "argv": ["muse", "serve", ...] },
//     "startedAt": "2025-08-07T18:22:11.000Z", "endedAt": "..." | null,
//     "client": { "frames": N, "bytes": N, "emptyLines": N,
//                 "unterminated": { "bytes": N, "sha256": "<64 hex>", "head": "<base64>",
//                                   "tail": "<base64>", "file": "client-unterminated.bin" | null,
//                                   "withheld": bool } },
//     "server": { ...the same },
//     "hostStderrBytes": N,
//     "exit": { "code": N } | { "signal": N, "signalName": "SIGKILL" } | null,
//     "signalsForwarded": ["SIGTERM", ...],   // signals msptk received and passed to the host
//     "closeTimeoutMs": N,                    // --close-timeout-ms (stop_ladder.hpp)
//     "hostDidNotExit": bool,                 // the host did not exit within the close timeout
//                                             // of being asked to: msptk sent stopSignals
//     "stopSignals": ["SIGTERM", "SIGKILL"],  // what msptk sent to the host's group on its own
//     "groupOutlivedHost": bool,              // processes of the host's group were still alive
//                                             // when it exited (msptk stopped them)
//     "clientGone": bool,                     // the client stopped reading before the end
//     "fingerprintSource": "initialize" | "option" | "none",
//     "environment": { "mode": "hermetic" | "inherited", "hermetic": bool,
//                      "variables": ["NAME", ...] },   // --env/--env-file names, never values
//     "redaction": { "paths": [ { "path": "params.apiKey", "values": N } ],
//                    "distinctValues": N,               // placeholders <redacted:1>..<redacted:N>
//                    "warnings": [ { "file": "transcript.ndjson" | "host-stderr.log" | "manifest.json",
//                                    "line": N, "dir": "client", "location": "params.token",
//                                    "method": "account/login" | "", "message": "..." } ] }
//     "flagged": [ { "line": N, "dir": "server", "reason": "oversized" | "serverCR" |
//                    "invalidUtf8", "bytes": N } ]
//   }
// `bytes` counts every byte read in a direction (LFs, empty lines and the tail included).
//
// Unterminated bytes (what a direction sent after its last LF: a host killed mid-frame, or a
// peer writing without ever ending its line) are never held in memory nor copied into the
// manifest: the recorder streams them to disk as they arrive (pending_frame.hpp) and keeps
// them, exactly, in the side file DIR/<dir>-unterminated.bin (`file`; null when there are none,
// or when the recording was made without a scenario folder to keep them in, e.g. by replay
// without --record). The manifest says only how many (`bytes`), their SHA-256 and their first
// and last 64 bytes (`head`, `tail`, base64), so it stays small whatever a peer writes.
// Under --redact (paths given) the side file, `head` and `tail` hold the tail as redacted when
// it parses as a JSON object; otherwise it is withheld: `withheld` true, no side file, `head`
// and `tail` empty, `bytes` and `sha256` those of the bytes read (tee.hpp).
#pragma once

#include "msptk/process/host_process.hpp"
#include "msptk/recorder/tee.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace msptk::recorder {

// How msptk ended a host (stop_ladder.hpp), as the capture records it.
struct StopInfo {
  int close_timeout_ms = 0;
  bool host_did_not_exit = false;
  bool group_outlived_host = false;
  std::vector<int> stop_signals;
};

// What `capture.environment` says about the host's environment (process/host_environment.hpp).
struct EnvironmentSummary {
  bool hermetic = false;
  std::vector<std::string> names;  // given with --env / --env-file
};

struct CaptureInfo {
  std::vector<std::string> host_argv;  // as spawned (placeholders expanded)
  std::string started_at;
  std::optional<std::string> ended_at;  // unset while recording
  const Tee* tee = nullptr;             // counts and flags; null before the session starts
  std::uint64_t host_stderr_bytes = 0;
  std::optional<process::ExitStatus> exit;
  std::vector<int> signals_forwarded;
  StopInfo stop;
  bool client_gone = false;
  std::string fingerprint_source = "none";
  EnvironmentSummary environment;
  const Redactor* redactor = nullptr;  // null: no redaction section's counts (all zero)
  // --wire-log FILE as given, and the chunks logged (capture.wireLog; null without one).
  std::optional<std::string> wire_log;
  std::uint64_t wire_log_chunks = 0;
};

boost::json::object capture_json(const CaptureInfo& info);

}  // namespace msptk::recorder
