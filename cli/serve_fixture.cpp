// `msptk serve-fixture --transcript DIR`: the canned host (seed 003). stdout carries wire frames
// only; stderr gets exactly one JSON line at the end (docs/serve-fixture.md). Usage errors and a
// scenario that cannot be played are reported as `msptk: error: ...` (exit 2 / 3) before any frame.
// `--exit-code N --stderr-lines K` plays a host that fails at once, for clients' spawn-failure paths.
#include "masking.hpp"
#include "verbs.hpp"

#include "msptk/playback/serve_fixture.hpp"
#include "msptk/process/signals.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <csignal>

#include <memory>
#include <optional>
#include <ostream>

namespace msptk::cli {

namespace {

struct ServeFixtureCli {
  std::string transcript;
  MaskOptions mask;
  bool accept_redacted = false;
  std::optional<int> exit_code;
  std::size_t stderr_lines = 0;
};

int run_failing_host(const ServeFixtureCli& cli, Streams io) {
  for (std::size_t i = 1; i <= cli.stderr_lines; ++i)
    io.err << fmt::format("msptk serve-fixture: simulated host failure, diagnostic line {} of {} (exit code {})\n", i,
                          cli.stderr_lines, *cli.exit_code);
  io.err.flush();
  return *cli.exit_code;
}

int run_serve_fixture(const ServeFixtureCli& cli, Streams io) {
  if (cli.exit_code) return run_failing_host(cli, io);
  if (cli.transcript.empty())
    return report_error(io, Error::usage("serve-fixture needs --transcript DIR (or --exit-code N)"));
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

  process::SigpipeIgnored no_sigpipe;  // a client that went away is a clientEof, not a crash
  // A client that stops its host with a signal instead of closing stdin still gets the report.
  auto signals = process::SignalPipe::create({SIGTERM, SIGINT, SIGHUP});
  playback::FdSource from_client(STDIN_FILENO, signals ? signals->fd() : -1);
  playback::FdSink to_client(STDOUT_FILENO);
  playback::ServeFixtureReport report = playback::serve_fixture(*script, *spec, from_client, to_client);
  if (signals && report.failure) {
    for (int signo : signals->take())
      report.failure->errors.push_back(fmt::format("received {}", process::signal_name(signo)));
  }
  playback::render_report_json(io.err, report);
  io.err.flush();
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
      "client used. The first frame that does not match stops the run unanswered. stdout carries wire frames only;\n"
      "stderr gets one JSON line at the end: {\"serveFixtureComplete\":{...}} or {\"serveFixtureFailure\":{...}}\n"
      "(docs/serve-fixture.md). The run is complete when the transcript is played and the client closes stdin.\n\n"
      "Exit status: 0 complete, 1 failure (frameDivergence, malformedClientFrame, clientEof), 2 usage error,\n"
      "3 unreadable or invalid scenario. With --exit-code N: N.");
  auto* transcript = sub->add_option("--transcript", cli->transcript,
                                     "The scenario folder to play (or a transcript.ndjson / *-legs.ndjson inside one)")
                         ->type_name("DIR");
  add_mask_options(*sub, cli->mask);
  sub->add_flag("--accept-redacted", cli->accept_redacted,
                "Let a client's real value match a recorded \"<redacted:N>\" placeholder (record --redact); the "
                "same N must always get the same value");
  auto* exit_code = sub->add_option("--exit-code", cli->exit_code,
                                    "Do not play anything: write --stderr-lines diagnostic lines to stderr, nothing to "
                                    "stdout, and exit with N (tests a client's spawn-failure path)")
                        ->check(CLI::Range(0, 255))
                        ->type_name("N");
  sub->add_option("--stderr-lines", cli->stderr_lines, "With --exit-code: how many diagnostic lines to write (default 0)")
      ->needs(exit_code)
      ->type_name("K");
  exit_code->excludes(transcript);
  return [cli](Streams io) { return run_serve_fixture(*cli, io); };
}

}  // namespace msptk::cli
