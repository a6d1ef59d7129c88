// `msptk record` as a library call: spawn a host, stand between it and the client (msptk's own
// stdin/stdout/stderr) byte-transparently, and leave behind a scenario folder
//   DIR/transcript.ndjson   every frame, appended as it completes (tee.hpp)
//   DIR/manifest.json       written at the start, atomically rewritten at the end
//   DIR/host-stderr.log     a copy of the host's stderr
//   DIR/<dir>-unterminated.bin  only when a direction ended inside a frame: its bytes after
//                           the last LF, exactly (capture.hpp)
//   DIR/<dir>.partial       only while a frame over the memory limit is arriving (it is
//                           streamed there, then copied into the transcript when its LF comes)
// Every write goes through the Disk seam (disk.hpp) and is checked: a failed write stops the
// recording (not the session) and makes RecordOutcome::recording_failure (exit 3).
// DIR is created 0700 and its files 0600 (recordings can hold secrets; an existing DIR keeps
// its permissions, a symlinked DIR is refused); a non-empty DIR is refused unless `force`
// (then only the files above are replaced).
//
// The manifest (FORMAT.md) gets: scenario (default: DIR's name), provenance host-generated,
// fingerprint (the host's initialize result `result.schema.fingerprint`, else the
// --fingerprint option, else empty: `validate` then reports the missing pin), viewSchemaVersion
// 1, serverConfig.frameLimitBytes, transports ["stdio"], normalize, seeds, source [] and the
// `capture` member (capture.hpp).
//
// The pinned values reach the host two ways: the placeholders {frameLimitBytes}, {idSeed} and
// {clockStartMs} in its arguments, and the environment variables MSP_FRAME_LIMIT_BYTES,
// MSP_ID_SEED and MSP_CLOCK_START_MS. The rest of its environment is a HostEnvironment
// (inherited, or hermetic with --hermetic), summarized in `capture.environment`.
//
// --redact PATH: the Tee records each frame as the Redactor rewrites it (redactor.hpp); the
// Redactor also warns about credentials recorded in the clear (RecordOutcome::warnings and
// `capture.redaction`). --wire-log FILE: every chunk read, as it was read (wirelog/); it holds
// the raw bytes, so it cannot be combined with --redact. FILE is created first, before DIR is
// touched, as a new file (exclusive, no symbolic link followed, 0600; an existing FILE is a
// usage error unless `force`, which replaces it by a rename once the host runs), and removed
// again when the host cannot be spawned.
#pragma once

#include "msptk/process/host_environment.hpp"
#include "msptk/process/host_process.hpp"
#include "msptk/recorder/clock.hpp"
#include "msptk/recorder/disk.hpp"
#include "msptk/recorder/pending_frame.hpp"
#include "msptk/recorder/forwarder.hpp"
#include "msptk/transcript/manifest.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::recorder {

struct RecordOptions {
  std::filesystem::path out;
  std::string scenario;  // empty: DIR's folder name
  std::int64_t frame_limit_bytes = kDefaultFrameLimitBytes;
  std::int64_t id_seed = kDefaultIdSeed;
  std::int64_t clock_start_ms = kDefaultClockStartMs;
  std::vector<std::string> normalize;
  std::string fingerprint;  // --fingerprint; empty when not given
  bool force = false;
  int close_timeout_ms = 5000;  // --close-timeout-ms: how long the host may take to exit once asked to
  std::vector<std::string> host_argv;  // HOST ARGS..., placeholders not yet expanded
  process::EnvironmentPlan environment;  // --hermetic, --env... (process/host_environment.hpp)
  std::vector<std::string> redact;       // --redact PATH (redactor.hpp)
  std::filesystem::path wire_log;        // --wire-log FILE (wirelog/wire_log.hpp); empty: none
  boost::json::object seeds_extra;       // more members of the manifest's seeds (record --script: commandIdSeed)
};

using Spawner = std::function<Result<std::unique_ptr<process::HostProcess>>(const process::SpawnSpec&)>;

// The side effects a recording uses; `system()` is the real world.
struct RecordEnv {
  const Clock* clock = nullptr;
  Spawner spawn;
  // Every file write of the recording (disk.hpp); null: the real disk. Tests inject failures.
  Disk* disk = nullptr;
  // Bytes of one direction's frame in progress held in memory before it spills to disk
  // (pending_frame.hpp).
  std::size_t memory_limit = kDefaultMemoryLimit;
  Wiring wiring;
  bool handle_signals = true;  // install the SignalPipe (SIGINT/SIGTERM/SIGHUP/SIGCHLD) and ignore SIGPIPE
  // Once the recording is written, ignore SIGINT/SIGTERM/SIGHUP for the rest of the process
  // (the CLI: a client that stops its "host" just as it exits must not turn a finished
  // recording into a death by signal). Leave false where the process spawns hosts afterwards.
  bool ignore_stop_signals_after = false;
  // A client that is not msptk's own stdin/stdout (record --script, script/scripted_record.hpp)
  // plugs in where the client's pipe is: `wiring.client_in`/`client_out` are its pipe ends, and
  // `client_done` is called once the session has ended, before the final manifest is written:
  // the client finishes there, and the members it returns are set in `capture` (`script`, and
  // `status` "incomplete" when it could not play to its end). Empty: nothing to finish.
  std::function<boost::json::object()> client_done;
  static RecordEnv system();
};

struct RecordOutcome {
  std::filesystem::path dir;
  process::ExitStatus exit;  // the host's; the recorder's own status is exit.shell_code()
  Manifest manifest;         // as written at the end
  // A failure to write the transcript, the stderr log or the final manifest. The session went
  // on (the client saw no difference) but the scenario is incomplete.
  std::optional<Error> recording_failure;
  // Credentials recorded in the clear (redactor.hpp), for stderr; also in capture.redaction.
  std::vector<CredentialWarning> warnings;
};

// Records one session. Errors before the host runs: usage (bad scenario id, non-empty DIR,
// DIR a file), unreadable (DIR cannot be created), spawn (HOST cannot be started).
Result<RecordOutcome> record(const RecordOptions& options, RecordEnv& env);

// A scenario id must be non-empty, not ".", and hold no path separator, no ".." and no control
// character.
Result<void> check_scenario_id(std::string_view id);

// HOST ARGS with {frameLimitBytes}, {idSeed} and {clockStartMs} replaced by the pinned values.
std::vector<std::string> expand_placeholders(const std::vector<std::string>& argv, const RecordOptions& options);

// The environment a host gets the pinned values in: MSP_FRAME_LIMIT_BYTES, MSP_ID_SEED,
// MSP_CLOCK_START_MS.
std::vector<std::pair<std::string, std::string>> pinned_environment(const RecordOptions& options);

// The manifest a recording starts with (the pins, the normalize list, the scenario id).
Manifest initial_manifest(const RecordOptions& options, const std::string& scenario);

// DIR's name as the default scenario id ("a/b/" -> "b").
std::string default_scenario_id(const std::filesystem::path& out);

// Creates DIR (0700, parents as needed) or checks that it is an empty folder (any folder with
// `force`). Only a folder it creates is restricted to 0700: an existing one keeps its
// permissions. An empty path and a symbolic link (dangling or not) are refused (usage).
Result<void> prepare_scenario_dir(const std::filesystem::path& out, bool force);

}  // namespace msptk::recorder
