// Replay is the host oracle of seed 003 (MATCHING.md §7): it plays a scenario's client side
// against a live host and checks that the host answers as recorded. The host is spawned with
// the manifest's pinned configuration (the recorder's placeholders {frameLimitBytes}, {idSeed},
// {clockStartMs} in its arguments and MSP_FRAME_LIMIT_BYTES, MSP_ID_SEED, MSP_CLOCK_START_MS
// in its environment). Walking the transcript in order, each recorded client line is written
// to the host's stdin (raw + LF, a trailing CR kept) once every server frame recorded before
// it has arrived, and each live server frame is compared with the next recorded one by the
// differ's FrameComparer (identical / equivalent under the manifest's normalize list /
// divergent). The run fails closed on the first divergent frame, on a server frame that does
// not arrive within the timeout (missing), and on any server frame after the last recorded one
// (extra: once the transcript is through, the host's stdin is closed and its stdout is read
// until EOF, within the timeout).
//
// Carrying learned values (replay_carry.hpp): a host may mint other values than the recording
// at declared paths (a session id, a server request id). The pairings the comparer made there
// are carried into the client lines sent next, so such a host can still be replayed; a client
// line in which nothing was learned differently is sent byte for byte as recorded.
//
// The transcript is read as the session walks it, one recorded line at a time (validation
// before it streams too): replay holds the recorded frame it is at, the live frames not yet
// compared, and what it learned (signatures of requests in flight, the comparer's pairings),
// so its memory does not grow with the transcript's length. What it reports does: one entry
// per frame that is not identical, one CarriedValue per value carried.
//
// `record_dir` saves what really happened as a scenario folder through the recorder's code
// (its Tee, TranscriptWriter and `capture` member), so `msptk diff SCENARIO OUT` says
// identical when the host behaved identically. sdk-tolerance scenarios (shapes a real host
// cannot emit) are refused. Legs files (*-legs.ndjson, separate connections) are not replayed;
// the report warns about them.
#pragma once

#include "msptk/chaos/spec.hpp"
#include "msptk/differ/diff.hpp"
#include "msptk/normalizer/mask.hpp"
#include "msptk/normalizer/registry.hpp"
#include "msptk/process/host_process.hpp"
#include "msptk/recorder/clock.hpp"
#include "msptk/recorder/recorder.hpp"
#include "msptk/transcript/error.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk {

struct ReplayOptions {
  std::filesystem::path scenario;                   // scenario folder (manifest.json + transcript.ndjson)
  std::vector<std::string> host_argv;               // HOST ARGS...; {frameLimitBytes} {idSeed} {clockStartMs} expanded by replay
  std::optional<std::filesystem::path> record_dir;  // --record OUT: what really happened, saved as a scenario by the recorder's code
  int timeout_ms = 10000;                           // per wait for the next expected server frame
  int close_timeout_ms = 5000;                      // how long the host may take to exit once stopped, before SIGTERM, then SIGKILL, to its group
  MaskMode mask = MaskMode::unify;                  // from normalizer/mask.hpp
  std::vector<std::string> extra_paths;             // like diff's --path (must be in the registry)
  Registry registry = Registry::builtin();
  process::EnvironmentPlan environment;             // --hermetic, --env... (process/host_environment.hpp)
  bool validated = false;                           // the caller validated the scenario already (check); else replay does
  // A divergent server frame does not stop the run: it is reported and the walk goes on (each
  // client line still waits for the server frames recorded before it), so the recording holds
  // the whole session (regen). A missing frame, an extra one or a dead host still stop it.
  bool keep_going = false;
  // --chaos: the client lines written the way real pipes behave at their worst (chaos/spec.hpp):
  // split, merge, delay, cr (CR LF), stall (the host's stdout not read for a while), close-after
  // (the host's stdin closed after N client frames: the run is cut on purpose, and a host that
  // does not exit within timeout_ms of that EOF fails). The bytes of every frame are unchanged.
  std::optional<chaos::ChaosRun> chaos;
};

// One value a client line carried in place of the recorded one (replay_carry.hpp).
struct CarriedValue {
  std::size_t line = 0;      // the client line's line in the scenario's transcript
  std::string location;      // where in the frame: params.sessionId, id
  std::string recorded;      // canonical JSON of the recorded value
  std::string live;          // canonical JSON of the value sent instead
  std::string learned_from;  // the bijection space it was learned in: "server frames' result.session.sessionId"
};

struct ReplayResult {
  int exit_code = 0;            // 0 pass, 1 divergence (incl. extra/missing frames, timeout), 3 spawn failure / premature host death
  std::string problem;          // one line naming the first failure with file:line and path ("" when it passed)
  DiffResult report;            // frame-by-frame outcome in the differ's data model (render with differ/render.hpp)
  std::optional<process::ExitStatus> host_exit;  // how the host ended (process/host_process.hpp)

  // Added by replay (not part of the fixed contract above).
  std::string scenario;                       // the manifest's scenario id
  std::vector<std::string> host_argv;         // as spawned (placeholders expanded)
  std::size_t client_lines_sent = 0;
  std::size_t server_frames_received = 0;     // complete server frames read from the host
  std::size_t server_frames_expected = 0;     // server lines of the transcript
  std::size_t client_lines_expected = 0;      // client lines of the transcript
  std::string stop_problem;                   // what ended the run first ("" when nothing did; under keep_going not a divergence)
  std::vector<CarriedValue> carried;          // learned values carried into client lines, in order
  bool host_killed = false;                   // msptk had to signal the host to end it (it did not exit; capture.hostDidNotExit)
  std::string host_stderr_tail;               // the last few KiB of the host's stderr
  std::optional<std::filesystem::path> record_dir;  // where the run was recorded
  std::optional<Error> recording_failure;     // writing OUT failed (the run went on; exit 3 if it passed)
  std::optional<Error> spawn_failure;         // HOST could not be started (exit 3; the CLI also prints it on stderr)
  // Under --chaos: the spec and seed; on failure, what the chaos did last (the perturbation in
  // force when the host broke, also at the end of `problem`); with close-after, the client
  // frames sent before the host's stdin was closed on purpose (the run was cut, not failed).
  struct Chaos {
    std::string spec;
    std::uint64_t seed = 0;
    std::string in_force;
    std::optional<std::size_t> cut_after;
  };
  std::optional<Chaos> chaos;

  bool passed() const { return exit_code == 0; }
  // The whole transcript was walked: every client line was sent and every recorded server frame
  // came and was compared, so a recording holds the whole session (a run stopped by a missing
  // frame, a dead host, a write timeout or, without keep_going, a divergence is cut short).
  bool complete() const {
    const DiffCounts& c = report.counts;
    return client_lines_sent == client_lines_expected &&
           c.identical + c.equivalent + c.divergent == server_frames_expected;
  }
};

// The side effects of a replay; `system()` is the real world.
struct ReplayEnv {
  recorder::Spawner spawn;                  // spawns the host (tests: a host made of pipes)
  const recorder::Clock* clock = nullptr;   // wall clock for the recording's capture times
  bool handle_signals = true;               // SIGINT/SIGTERM/SIGHUP stop the run; SIGPIPE ignored
  // Once the run is over, ignore SIGINT/SIGTERM/SIGHUP for the rest of the process (the CLI:
  // a late stop request must not turn a written report into a death by signal).
  bool ignore_stop_signals_after = false;
  // Receives every chunk of the host's stderr (besides OUT/host-stderr.log); may be empty.
  std::function<void(std::string_view)> host_stderr;
  static ReplayEnv system();
};

// Errors (Result error) only for problems before the session starts: unreadable/invalid
// scenario (kind unreadable/malformed → exit 3), sdk-tolerance scenario refused (kind usage,
// exit 2, clear message). Everything that happens during the session is in ReplayResult.
// Also usage errors for bad options (no HOST, a timeout <= 0, an unregistered --path, a
// non-empty --record folder).
Result<ReplayResult> replay_scenario(const ReplayOptions& options);
Result<ReplayResult> replay_scenario(const ReplayOptions& options, ReplayEnv& env);

}  // namespace msptk
