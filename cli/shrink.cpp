// msptk shrink SCENARIO --out DIR (--host 'CMD' | --client 'CMD') [--max-runs N] [--timeout-ms T]:
// the smallest scenario found that still fails the same way (shrink/shrink.hpp).
#include "option_checks.hpp"
#include "verbs.hpp"

#include "msptk/check/host_command.hpp"
#include "msptk/shrink/shrink.hpp"

#include <memory>

namespace msptk::cli {

namespace {

struct ShrinkCli {
  std::string scenario;
  std::string out;
  std::string host;
  std::string client;
  std::size_t max_runs = 500;
  int timeout_ms = 10000;
};

int run_shrink(const ShrinkCli& cli, Streams io) {
  if (cli.host.empty() == cli.client.empty())
    return report_error(io, Error::usage(cli.host.empty() ? "shrink needs the peer that fails: --host 'CMD' or --client 'CMD'"
                                                          : "shrink takes --host or --client, not both"));
  shrink::ShrinkOptions options;
  options.scenario = cli.scenario;
  options.out = cli.out;
  options.peer = cli.host.empty() ? shrink::PeerKind::client : shrink::PeerKind::host;
  auto argv = check::split_command(cli.host.empty() ? cli.client : cli.host);
  if (!argv) return report_error(io, argv.error());
  options.command = std::move(*argv);
  options.max_runs = cli.max_runs;
  options.timeout_ms = cli.timeout_ms;
  auto result = shrink::shrink_scenario(options);
  if (!result) return report_error(io, result.error());
  shrink::render_shrink_text(io.out, *result);
  return result->exit_code;
}

}  // namespace

Runner setup_shrink(CLI::App& app) {
  auto cli = std::make_shared<ShrinkCli>();
  CLI::App* sub = app.add_subcommand("shrink", "Find a smaller scenario that still fails the same way against a host or client");
  sub->footer(
      "Delta debugging over the scenario's exchanges (a request with its response and the notifications between\n"
      "them; the handshake always kept; a server request kept with its answer): every candidate is a valid\n"
      "scenario, run against the peer: --host 'CMD' is replayed to (as msptk replay), --client 'CMD' is run and\n"
      "must spawn `msptk serve-fixture --transcript {scenario}`. {scenario} in CMD becomes each candidate's\n"
      "folder. The same failure = the same problem kind and, for a divergence, the same JSON path and frame.\n"
      "DIR gets the smallest failing scenario found: the manifest copied (named after DIR) with `shrunkFrom`.\n\n"
      "Exit status: 0 written, 1 the failure did not reproduce (nothing written), 2 usage error,\n"
      "3 unreadable or invalid scenario, or the host or client could not be run.");
  sub->add_option("SCENARIO", cli->scenario, "The failing scenario folder")->required()->type_name("SCENARIO");
  sub->add_option("--out", cli->out, "The folder to write the shrunk scenario to (new or empty)")
      ->required()
      ->check(folder_check())
      ->type_name("DIR");
  sub->add_option("--host", cli->host, "The host that fails the scenario under replay (one string, split into words)")
      ->type_name("CMD");
  sub->add_option("--client", cli->client,
                  "The client that fails against serve-fixture of the scenario (one string; it spawns "
                  "`msptk serve-fixture --transcript {scenario}`)")
      ->type_name("CMD");
  sub->add_option("--max-runs", cli->max_runs, "Run the peer at most N times (the first run included)")
      ->check(number_check(1))
      ->default_val(500)
      ->type_name("N");
  sub->add_option("--timeout-ms", cli->timeout_ms,
                  "Per run: replay's wait for each server frame (--host), or the client's whole run (--client)")
      ->check(number_check(1, 86400000))
      ->default_val(10000)
      ->type_name("T");
  return [cli](Streams io) { return run_shrink(*cli, io); };
}

}  // namespace msptk::cli
