// `msptk serve-fixture --transcript DIR`: the canned host (seed 003). stdout carries wire frames
// only; stderr gets exactly one JSON line at the end (docs/serve-fixture.md). Usage errors and a
// scenario that cannot be played are reported as `msptk: error: ...` (exit 2 / 3) before any frame.
// The run ends once the transcript is played (--until-eof: at the client's EOF). `--exit-code N
// --stderr-lines M` plays a host that dies at once, for clients' process-death paths.
#include "chaos_options.hpp"
#include "masking.hpp"
#include "option_checks.hpp"
#include "verbs.hpp"

#include "msptk/playback/chaos_stream.hpp"
#include "msptk/playback/serve_fixture.hpp"
#include "msptk/process/signals.hpp"
#include "msptk/transcript/json_io.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <csignal>

#include <cstdlib>
#include <memory>
#include <sstream>
#include <optional>
#include <ostream>

namespace msptk::cli {

namespace {

struct ServeFixtureCli {
  std::string transcript;
  MaskOptions mask;
  bool accept_redacted = false;
  bool until_eof = false;
  bool verbatim = false;
  bool keep_going = false;
  bool follow_minted = false;
  std::optional<int> exit_code;
  std::optional<std::size_t> stderr_lines;
  ChaosOptions chaos;
};

// M short opaque lines (64 bytes up to line 999; SDKs keep a host's last 100 lines / 8 KiB),
// each ending in `diagnostic line K`; nothing on stdout.
int run_dying_host(const ServeFixtureCli& cli, Streams io) {
  for (std::size_t k = 1; k <= *cli.stderr_lines; ++k)
    io.err << "msptk serve-fixture: simulated host failure, diagnostic line " << k << "\n";
  io.err.flush();
  return *cli.exit_code;
}

int run_serve_fixture(const ServeFixtureCli& cli, Streams io) {
  if (cli.exit_code.has_value() != cli.stderr_lines.has_value())
    return report_error(io, Error::usage("serve-fixture: --exit-code N and --stderr-lines M go together (a host that "
                                         "writes M diagnostic lines and exits with N)"));
  if (cli.exit_code) {
    if (!cli.transcript.empty())
      return report_error(io, Error::usage("serve-fixture: --exit-code/--stderr-lines play a host that dies at once and "
                                           "cannot be combined with --transcript"));
    return run_dying_host(cli, io);
  }
  if (cli.follow_minted && cli.verbatim)
    return report_error(io, Error::usage("serve-fixture: --follow-minted writes the client's values into server frames "
                                         "and --verbatim writes every server byte as recorded: choose one"));
  if (cli.transcript.empty())
    return report_error(io, Error::usage("serve-fixture needs --transcript DIR (or --exit-code N --stderr-lines M)"));
  auto chaos = chaos_run(cli.chaos, chaos::ChaosRole::server);
  if (!chaos) return report_error(io, chaos.error());
  process::SigpipeIgnored no_sigpipe;  // a client that went away is a clientEof, not a crash
  // A client that stops its host with a signal instead of closing stdin still gets the report;
  // caught from here on, so that one arriving while the scenario is validated is not a death.
  auto signals = process::SignalPipe::create({SIGTERM, SIGINT, SIGHUP});
  Registry registry = Registry::builtin();
  if (!cli.mask.registry.empty()) {
    if (auto extended = registry.extend_from_file(cli.mask.registry); !extended)
      return report_error(io, extended.error());
  }
  auto script = playback::load_fixture(cli.transcript, registry);
  if (!script) return report_error(io, script.error());
  auto spec = mask_spec_for(script->scenario, cli.mask);
  if (!spec) return report_error(io, spec.error());
  spec->accept_redacted = cli.accept_redacted;

  playback::FdSource fd_source(STDIN_FILENO, signals ? signals->fd() : -1);
  playback::FdSink fd_sink(STDOUT_FILENO);
  playback::ByteSource* from_client = &fd_source;
  playback::ByteSink* to_client = &fd_sink;
  // Under --chaos the streams are wrapped; close-after closes stdout (the client's stdin).
  std::optional<playback::ChaosSink> chaos_sink;
  std::optional<playback::ChaosSource> chaos_source;
  if (*chaos) {
    chaos_sink.emplace(fd_sink, **chaos, "server frame", chaos::real_sleep(), [] { ::close(STDOUT_FILENO); });
    chaos_source.emplace(fd_source, **chaos, "the client", chaos::real_sleep());
    to_client = &*chaos_sink;
    from_client = &*chaos_source;
  }
  playback::ServeOptions options;
  options.until_eof = cli.until_eof;
  options.verbatim = cli.verbatim;
  options.keep_going = cli.keep_going;
  options.follow_minted = cli.follow_minted;
  playback::ServeFixtureReport report = playback::serve_fixture(*script, *spec, *from_client, *to_client, options);
  if (*chaos) {
    std::string in_force = chaos_sink->in_force();
    if (std::string stall = chaos_source->in_force(); !stall.empty()) in_force += "; " + stall;
    report.chaos = playback::ServeChaos{chaos::to_string((*chaos)->spec), (*chaos)->seed, std::move(in_force)};
  }
  if (signals) signals->ignore_after_release({SIGTERM, SIGINT, SIGHUP});  // the verdict is final
  // The transcript could not be read on once the run had started: no verdict (exit 3).
  if (report.error) return report_error(io, *report.error);
  if (signals && report.failure) {
    for (int signo : signals->take())
      report.failure->errors.push_back(fmt::format("received {}", process::signal_name(signo)));
  }
  playback::render_report_json(io.err, report);
  io.err.flush();
  // MSPTK_FIXTURE_REPORT=FILE: the same line also goes to FILE (msptk shrink --client reads it
  // there, whatever the client does with its host's stderr).
  if (const char* copy = std::getenv("MSPTK_FIXTURE_REPORT"); copy && *copy) {
    std::ostringstream line;
    playback::render_report_json(line, report);
    (void)write_file_atomic(copy, line.str(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  }
  return report.exit_code();
}

}  // namespace

Runner setup_serve_fixture(CLI::App& app) {
  auto cli = std::make_shared<ServeFixtureCli>();
  CLI::App* sub = app.add_subcommand(
      "serve-fixture", "Play a scenario's server side to a client on stdio, in place of `muse serve` (a canned host)");
  sub->footer(
      "Each client frame on stdin is matched against the next recorded client line (structurally; the client's own\n"
      "ids, commandIds and clientInfo are unified, the manifest's normalize list applies); on a match the recorded\n"
      "server lines up to the next client line are written to stdout byte for byte, a response carrying the id the\n"
      "client used (--verbatim: as recorded). The first frame that does not match stops the run unanswered\n"
      "(--keep-going: the run goes on along the script, and the report lists every divergent, missing and extra\n"
      "frame). --follow-minted: server frames carry the client's own ids, commandIds and clientInfo wherever the\n"
      "recording has the recorded ones.\n"
      "stdout carries wire frames only; stderr gets one JSON line at the end: {\"kind\":\"serveFixtureComplete\",...}\n"
      "or {\"kind\":\"serveFixtureFailure\",...} (docs/serve-fixture.md). The run is complete as soon as every\n"
      "recorded line is played: the fixture exits without waiting for stdin to close (--until-eof: it waits, and a\n"
      "frame after the end is a frameDivergence).\n\n"
      "--chaos SPEC delivers the same frames the way real pipes behave at their worst (README, Chaos); the\n"
      "report names the spec and the seed; with close-after=N the run is cut on purpose (serveFixtureCut) and a\n"
      "client that does not close its end within 5 s fails (clientHung).\n\n"
      "Exit status: 0 complete (or cut), 1 failure (frameDivergence, malformedClientFrame, clientEof, clientHung),\n"
      "2 usage error, 3 unreadable or invalid scenario. With --exit-code N --stderr-lines M: N.");
  sub->add_option("--transcript", cli->transcript,
                  "The scenario folder to play (or a transcript.ndjson / *-legs.ndjson inside one)")
      ->check(path_check())
      ->type_name("DIR");
  add_mask_options(*sub, cli->mask);
  add_chaos_options(*sub, cli->chaos);
  sub->add_flag("--accept-redacted", cli->accept_redacted,
                "Let a client's real value match a recorded \"<redacted:N>\" placeholder (record --redact); the "
                "same N must always get the same value");
  sub->add_flag("--until-eof", cli->until_eof,
                "After the last recorded line keep reading until the client closes stdin; a frame then is a "
                "frameDivergence (the older behaviour)");
  sub->add_flag("--verbatim", cli->verbatim,
                "Write every server byte as recorded: responses keep the recorded ids instead of the client's (the "
                "older upstream rule)");
  sub->add_flag("--keep-going", cli->keep_going,
                "Do not stop at a frame that does not match: one with the expected kind and method stands in for the "
                "recorded line, one found further on in the script skips the lines before it (missing), one found "
                "nowhere is extra and unanswered; the report lists them all (exit 1 when any)");
  sub->add_flag("--follow-minted", cli->follow_minted,
                "Write the client's own minted values (request ids, params.commandId, clientInfo) into server frames "
                "wherever the recording has the recorded ones as whole JSON strings (an ack's commandId and turnId), "
                "and match client frames that echo them; the report counts the substitutions");
  sub->add_option("--exit-code", cli->exit_code,
                  "With --stderr-lines M: play a host that dies at once: M diagnostic lines on stderr, nothing on "
                  "stdout, exit N (tests a client's process-death path)")
      ->check(number_check(0, 255))
      ->type_name("N");
  sub->add_option("--stderr-lines", cli->stderr_lines,
                  "With --exit-code N: how many diagnostic lines to write, each ending in `diagnostic line K`")
      ->check(number_check(0))
      ->type_name("M");
  return [cli](Streams io) { return run_serve_fixture(*cli, io); };
}

}  // namespace msptk::cli
