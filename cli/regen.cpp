// msptk regen --transcript DIR [--timeout-ms T] [--hermetic ...] -- HOST [ARGS...]: regenerate a scenario from
// a live host, rewriting it only when the capture is equivalent or the manifest justifies the
// divergence (maintenance/regen.hpp).
#include "environment_options.hpp"
#include "option_checks.hpp"
#include "verbs.hpp"

#include "msptk/maintenance/regen.hpp"

#include <memory>

namespace msptk::cli {

namespace {

struct RegenCli {
  std::string scenario;
  int timeout_ms = 10000;
  int close_timeout_ms = 5000;
  process::EnvironmentOptions environment;
  std::string registry;
  std::vector<std::string> host;
};

int run_regen(const RegenCli& cli, Streams io) {
  maintenance::RegenOptions options;
  options.scenario = cli.scenario;
  options.host_argv = cli.host;
  options.timeout_ms = cli.timeout_ms;
  options.close_timeout_ms = cli.close_timeout_ms;
  auto plan = environment_plan(cli.environment);
  if (!plan) return report_error(io, plan.error());
  options.environment = std::move(*plan);
  if (!cli.registry.empty()) {
    if (auto extended = options.registry.extend_from_file(cli.registry); !extended)
      return report_error(io, extended.error());
  }
  auto result = maintenance::regen_scenario(options);
  if (!result) return report_error(io, result.error());
  maintenance::render_regen_text(*result, io.out);
  if (result->write_failure) {
    io.out << std::flush;
    report_error(io, *result->write_failure);  // the report stands on stdout
  }
  return result->exit_code;
}

}  // namespace

Runner setup_regen(CLI::App& app) {
  auto cli = std::make_shared<RegenCli>();
  CLI::App* sub = app.add_subcommand(
      "regen", "Regenerate a scenario from HOST: replay its client side while recording (use -- before HOST)");
  sub->footer(
      "HOST is started with the manifest's pins, as replay does (--hermetic: in a fresh environment, as record\n"
      "--hermetic). A byte-identical capture leaves the files untouched; one equivalent under the manifest's\n"
      "normalize list replaces transcript.ndjson (provenance becomes host-generated; `capture` says how the host\n"
      "ran). A divergent capture prints the path-level diff and \"host wrong or fixture wrong?\" and is written\n"
      "only when the manifest carries a complete regenerationJustification (cite, rationale, trackingIssue; no\n"
      "option waives this). A partial justification fails before anything runs. sdk-tolerance scenarios are\n"
      "refused. The rewrite is atomic (new folder contents, then one exchanging rename). DIR may be spelled\n"
      "any way (DIR/, ., relative, absolute).\n\n"
      "Exit status: 0 identical, replaced, or rewritten under a justification; 1 divergent and not rewritten, or a\n"
      "partial justification; 2 usage error (sdk-tolerance); 3 invalid scenario, spawn failure, host death, write "
      "failure.");
  sub->add_option("--transcript", cli->scenario, "The scenario folder to regenerate")
      ->required()
      ->check(folder_check())
      ->type_name("DIR");
  sub->add_option("--timeout-ms", cli->timeout_ms, "How long to wait for each expected server frame")
      ->check(number_check(1, 86400000))
      ->default_val(10000)
      ->type_name("T");
  add_close_timeout_option(*sub, cli->close_timeout_ms);
  add_environment_options(*sub, cli->environment);
  sub->add_option("--registry", cli->registry, "Extend the registry of allowed normalize paths (a JSON array)")
      ->check(file_check())
      ->type_name("FILE");
  sub->add_option("HOST", cli->host, "HOST [ARGS...]: the host command, spawned without a shell")->required();
  return [cli](Streams io) { return run_regen(*cli, io); };
}

}  // namespace msptk::cli
