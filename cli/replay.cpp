// msptk replay --transcript DIR [options] -- HOST [ARGS...]: play a scenario's client side
// against a live host and check that it answers as recorded (seed 003, MATCHING.md §7).
#include "chaos_options.hpp"
#include "environment_options.hpp"
#include "masking.hpp"
#include "option_checks.hpp"
#include "verbs.hpp"

#include "msptk/playback/replay.hpp"
#include "msptk/playback/replay_render.hpp"

#include <memory>

namespace msptk::cli {

namespace {

struct ReplayCli {
  std::string scenario;
  std::string record;
  int timeout_ms = 10000;
  int close_timeout_ms = 5000;
  MaskOptions mask;
  std::string format = "text";
  process::EnvironmentOptions environment;
  std::vector<std::string> host;
  ChaosOptions chaos;
};

int run_replay(const ReplayCli& cli, Streams io) {
  ReplayOptions options;
  options.scenario = cli.scenario;
  options.host_argv = cli.host;
  if (!cli.record.empty()) options.record_dir = cli.record;
  options.timeout_ms = cli.timeout_ms;
  options.close_timeout_ms = cli.close_timeout_ms;
  auto chaos = chaos_run(cli.chaos, chaos::ChaosRole::client);
  if (!chaos) return report_error(io, chaos.error());
  options.chaos = *chaos;
  auto plan = environment_plan(cli.environment);
  if (!plan) return report_error(io, plan.error());
  options.environment = std::move(*plan);
  options.mask = parse_mask_mode(cli.mask.mode).value_or(MaskMode::unify);
  options.extra_paths = cli.mask.paths;
  if (!cli.mask.registry.empty()) {
    if (auto extended = options.registry.extend_from_file(cli.mask.registry); !extended)
      return report_error(io, extended.error());
  }
  ReplayEnv env = ReplayEnv::system();
  env.ignore_stop_signals_after = true;  // the report is final once the run is over (signals.hpp)
  auto result = replay_scenario(options, env);
  if (!result) return report_error(io, result.error());
  if (cli.format == "json") {
    render_replay_json(io.out, *result);
  } else {
    render_replay_text(io.out, *result);
  }
  if (result->spawn_failure) {  // the report says it on stdout; a user reading stderr sees it too
    io.out.flush();
    (void)report_error(io, *result->spawn_failure);
  }
  return result->exit_code;
}

}  // namespace

Runner setup_replay(CLI::App& app) {
  auto cli = std::make_shared<ReplayCli>();
  CLI::App* sub = app.add_subcommand(
      "replay", "Play a scenario's client side against HOST and check its answers (use -- before HOST)");
  sub->footer(
      "HOST is started with the manifest's pins ({frameLimitBytes} {idSeed} {clockStartMs} in ARGS,\n"
      "MSP_FRAME_LIMIT_BYTES, MSP_ID_SEED, MSP_CLOCK_START_MS). Each client line is written once the server\n"
      "frames recorded before it have arrived; every server frame is compared in order (identical, equivalent\n"
      "under the manifest's normalize list, or divergent). Values the host minted differently at declared\n"
      "paths are carried into the client lines sent next. After the last line HOST's stdin is closed and any\n"
      "further server frame is extra. sdk-tolerance scenarios are refused.\n"
      "--chaos SPEC writes the client lines the way real pipes behave at their worst (README, Chaos); the\n"
      "report names the spec and seed, a failure the perturbation in force; close-after=N cuts the run on\n"
      "purpose and HOST must then exit within --timeout-ms.\n\n"
      "Exit status: 0 passed, 1 divergent (or an extra or missing frame, a timeout), 2 usage error,\n"
      "3 unreadable scenario, spawn failure or the host died before the transcript's end.");
  sub->add_option("--transcript", cli->scenario, "The scenario folder to replay (manifest.json + transcript.ndjson)")
      ->required()
      ->check(folder_check())
      ->type_name("DIR");
  sub->add_option("--record", cli->record, "Save what really happened as a scenario folder (created 0700; must be empty)")
      ->check(folder_check())
      ->type_name("OUT");
  sub->add_option("--timeout-ms", cli->timeout_ms, "How long to wait for each expected server frame")
      ->check(number_check(1, 86400000))
      ->default_val(10000)
      ->type_name("T");
  add_close_timeout_option(*sub, cli->close_timeout_ms);
  add_mask_options(*sub, cli->mask);
  add_chaos_options(*sub, cli->chaos);
  sub->add_option("--format", cli->format, "Report format: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->default_str("text")
      ->type_name("FORMAT");
  add_environment_options(*sub, cli->environment);
  sub->add_option("HOST", cli->host, "HOST [ARGS...]: the host command, spawned without a shell")->required();
  return [cli](Streams io) { return run_replay(*cli, io); };
}

}  // namespace msptk::cli
