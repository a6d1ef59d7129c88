// serve-fixture is the canned host of seed 003 and MATCHING.md §7: it plays the server side of
// one recorded connection to a live client that spawned it as it would spawn `muse serve`.
// Each frame the client writes (LF-terminated; a trailing CR tolerated; empty lines ignored)
// is matched with the FrameComparer against the next recorded client line (structurally, with
// the values the client mints unified and the manifest's normalize list applied); on a match
// the recorded server lines up to the next client line are written byte for byte (raw + LF),
// except that a response to one of the client's requests carries the id the client used,
// spliced into the recorded bytes (member_scan.hpp). Server lines before the first client line
// are written at once. Nothing is ever improvised: the first frame that does not match stops
// the run with a typed failure, unanswered (with `keep_going`, the run goes on along the script
// and the report lists every divergent, missing and extra frame; with `follow_minted`, the
// recorded values the client minted are replaced by the client's in every server frame).
//
// Inbound frames are cut with a LineFramer bounded by the manifest's frameLimitBytes, as the
// real host reads them: a frame over the limit is never buffered beyond its first limit bytes.
// It matches a recorded client line that is over the limit as well, compared on what the host
// can see of both: the top-level members complete within the first limit bytes, as a
// structural comparison with unification (the request id in particular: whether it can be
// recovered from the prefix decides the host's answer), members cut by the limit on either side
// left out. A recorded client line that is not JSON (a deliberately broken frame) is matched
// byte for byte (trailing CR aside).
//
// The run is complete as soon as every recorded line has been played (the upstream harness
// contract: the fixture exits on its own, without waiting for the client to close stdin, and
// frames after the last exchange are not judged). With `until_eof` (the older behaviour) it
// then keeps reading until the client closes its end (EOF) or stops the host (the source
// reports ECANCELED: the CLI's SIGTERM/SIGINT/SIGHUP), and a frame after the last recorded
// line is a divergence. A client EOF or stop, or a client that stops reading (EPIPE on
// stdout), before the end is `clientEof`. The outcome is data (a ServeFixtureReport) rendered
// as one flat JSON line with a `kind` member (docs/serve-fixture.md), every frame it quotes
// capped at kReportQuoteBytes with the number of bytes left out.
#pragma once

#include "msptk/differ/comparer.hpp"
#include "msptk/normalizer/mask.hpp"
#include "msptk/normalizer/registry.hpp"
#include "msptk/playback/byte_stream.hpp"
#include "msptk/transcript/scenario.hpp"

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace msptk::playback {

// The recorded connection one serve-fixture run plays. load_fixture makes a streamed script:
// its frames are read from `transcript` as the session advances (the current recorded line, the
// server lines of one write batch), so a run's memory does not grow with the transcript's
// length. A script with `stream` false plays the frames it holds (tests, fuzz targets).
struct FixtureScript {
  Scenario scenario;                // the folder's files and manifest (its normalize list feeds the MaskSpec)
  std::string transcript;           // the file played: transcript.ndjson or a *-legs.ndjson
  std::size_t frame_limit = 0;      // serverConfig.frameLimitBytes
  std::vector<Frame> frames;        // the lines, in wire order, when not `stream`
  bool stream = false;              // true: the lines are read from `transcript` as they are played

  const std::string& id() const { return scenario.manifest.scenario; }
};

// Loads the scenario at `path`: a scenario folder (its transcript.ndjson is played) or a
// transcript file inside one (transcript.ndjson or a *-legs.ndjson: that file is played). The
// folder must hold a manifest.json and pass `msptk validate` (with `registry` for the normalize
// paths): a scenario it rejects is refused with its first error (`malformed`, naming file, line
// and rule); a path that cannot be read is `unreadable`. Validation streams the files (one line
// at a time); the script returned is streamed (`stream`): no frame is read yet.
Result<FixtureScript> load_fixture(const std::filesystem::path& path, const Registry& registry);

// What the live verbs (serve-fixture, replay) do before playing a scenario folder: validate
// it, and refuse it with validate's first problem or error ("invalid scenario, not played: …",
// naming file, line and rule; and how many more errors there are). With `format_only`, only
// errors of the file and manifest rules refuse it (replay: a host oracle may be run on a
// transcript whose session rules fail, e.g. a `cat` echo in tests; what it cannot run is an
// unreadable, empty, CRLF or future-version scenario, or one whose id is not its folder).
Result<void> require_valid_scenario(const std::filesystem::path& dir, const Registry& registry,
                                    bool format_only = false);

enum class ServeProblem { frame_divergence, malformed_client_frame, client_eof, client_hung };

// "frameDivergence", "malformedClientFrame", "clientEof", "clientHung" (under chaos
// close-after: the client kept its end open after its host's stdout was closed).
std::string_view to_string(ServeProblem problem);

struct ServeFailure {
  ServeProblem problem = ServeProblem::frame_divergence;
  std::optional<std::size_t> transcript_line;  // the recorded line the run stopped at (none after the end)
  std::optional<std::string> expected_frame;   // that line's frame, when it is a client frame
  std::optional<std::string> received_frame;   // the client's frame (its first frameLimitBytes bytes when over)
  std::optional<std::size_t> received_bytes;   // the received frame's full size, without LF
  std::vector<PathDivergence> divergences;     // `actual` = what the client sent
  std::vector<std::string> errors;             // human-readable explanations
};

// A run cut on purpose by chaos close-after=N: the client's stdin (the host's stdout) was
// closed after `server_frames` frames; the client then closed its end (or stopped the host)
// within the grace, as a client must when its host goes away.
struct ServeCut {
  std::size_t server_frames = 0;
  std::optional<std::size_t> transcript_line;  // the recorded line the run was cut at (none: at the end)
};

// The chaos a run was played under (chaos/spec.hpp), as the report names it.
struct ServeChaos {
  std::string spec;       // canonical spelling: "split,merge,delay=5"
  std::uint64_t seed = 0;
  std::string in_force;   // on failure: what the chaos streams did last ("server frame 7 written in 3 writes ...")
};

// --keep-going: what one client frame (or recorded client line) was, measured against the script.
enum class ScriptOutcome {
  divergent,  // it differed from the recorded line it stood in for (and got that line's answer)
  missing,    // a recorded client line the client never sent (skipped, or after its last frame)
  extra,      // a client frame found nowhere in the script ahead: not answered
};

// "divergent", "missing", "extra".
std::string_view to_string(ScriptOutcome outcome);

struct ScriptDifference {
  ScriptOutcome outcome = ScriptOutcome::divergent;
  std::optional<std::size_t> transcript_line;  // the recorded client line (none for extra)
  std::optional<std::size_t> input_line;       // the client's input line (none for missing)
  std::string signature;                       // "client request turn/start" (the client's frame's for extra)
  std::optional<std::string> received_frame;   // divergent, extra: its first kReportQuoteBytes bytes
  std::optional<std::size_t> received_bytes;   // its full size, without LF
  std::vector<PathDivergence> divergences;     // divergent: at most kReportDivergences places
  std::size_t divergences_omitted = 0;         // places not kept
};

// The keep-going members of a report: every difference counted, the first kReportDivergences
// listed in the order they were found.
struct KeepGoingReport {
  std::vector<ScriptDifference> differences;
  std::size_t divergent = 0, missing = 0, extra = 0;
  std::size_t skipped_server_frames = 0;  // recorded server lines not written (they follow missing lines)
  // clientInfo name/version the client sent where the recording has another value (unified,
  // so not divergent; listed because a client version shows here): path, recorded, received.
  std::vector<PathDivergence> client_info;
};

struct ServeFixtureReport {
  std::string scenario;    // the manifest's scenario id
  std::string transcript;  // the file played
  std::size_t client_frames = 0;  // client frames matched
  std::size_t server_frames = 0;  // server frames written in full
  std::size_t empty_lines = 0;    // empty input lines ignored
  std::optional<ServeFailure> failure;
  std::optional<ServeCut> cut;      // chaos close-after cut the run (kind serveFixtureCut when no failure)
  std::optional<ServeChaos> chaos;  // set by the caller that wrapped the streams
  std::optional<KeepGoingReport> keep_going;  // with --keep-going
  std::optional<std::size_t> substitutions;   // with --follow-minted: recorded minted values replaced
  // A streamed script's transcript could not be read on (it changed or failed after it was
  // validated): the run stopped there; an infrastructure error (exit 3), not a verdict.
  std::optional<Error> error;

  bool complete() const { return !failure && !error; }
  int exit_code() const { return error ? 3 : failure ? 1 : 0; }
};

struct ServeOptions {
  // false (default): complete once every recorded line is played, without reading further.
  // true (--until-eof): then read until the client's EOF; a frame after the end diverges.
  bool until_eof = false;
  // true (--verbatim): every server byte as recorded, the client's ids not spliced into
  // responses (the older upstream rule).
  bool verbatim = false;
  // Once the sink cut the run on purpose (ByteSink::cut, chaos close-after), how long the
  // client may take to close its end before the run fails with clientHung.
  int cut_grace_ms = 5000;
  // true (--keep-going): a client frame that does not match does not stop the run. One with the
  // next recorded line's kind and method stands in for it (answered with its recorded server
  // lines); one whose signature is found further on skips the recorded lines before it
  // (missing, their server lines not written); one found nowhere is extra and unanswered. The
  // client closing stdin early leaves the rest of the script missing. Every difference is in
  // the report; any makes the run a frameDivergence.
  bool keep_going = false;
  // true (--follow-minted): once a recorded client-minted value (request id, commandId,
  // clientInfo name/version) is paired with the client's, server frames carry the client's
  // value wherever the recording has the recorded one as a whole JSON string, and a client
  // frame echoing its own value where the recording has the recorded one matches
  // (minted_follow.hpp). Not with `verbatim`.
  bool follow_minted = false;
};

// Plays `script` to a client: reads its frames from `from_client`, writes server frames to
// `to_client`, until the transcript is played (or, with `until_eof`, the client's EOF) or the
// first failure (then it returns at once, without reading further). `mask` is the manifest's
// normalize list (+ explicit paths) and mode. What it holds does not grow with the
// transcript's length: the recorded frame at the cursor and what is learned of the frames
// before it (the requests in flight, the client's ids for the requests not yet answered, the
// comparer's bijections); the server lines up to the next client line are written in batches
// of about 1 MiB (a larger frame alone).
ServeFixtureReport serve_fixture(const FixtureScript& script, const MaskSpec& mask, ByteSource& from_client,
                                 ByteSink& to_client, const ServeOptions& options = {});

// The most bytes of one frame or value a report quotes; the rest is counted, not quoted
// (`expectedFrameOmittedBytes`, `receivedFrameOmittedBytes`, a divergence's
// `expectedOmittedBytes`/`receivedOmittedBytes`). At most kReportDivergences divergences are
// listed (`divergencesOmitted` counts the others), so a failure line stays small whatever the
// client sent.
inline constexpr std::size_t kReportQuoteBytes = 4096;
inline constexpr std::size_t kReportDivergences = 64;

// --keep-going looks for a client frame's kind and method at most this many recorded client
// lines after the one it was expected to match (the look ahead reads the transcript again from
// there, one frame at a time: the window bounds its time, the memory is one frame whatever it is).
inline constexpr std::size_t kLookaheadClientLines = 256;

// The report as ONE flat line of JSON (+ LF) with a `kind` member:
// {"kind":"serveFixtureComplete",...}, {"kind":"serveFixtureCut",...} (chaos close-after) or
// {"kind":"serveFixtureFailure",...}; under chaos a `chaos` member; shapes in
// docs/serve-fixture.md.
void render_report_json(std::ostream& out, const ServeFixtureReport& report);

}  // namespace msptk::playback
