// msptk record --out DIR [options] -- HOST [ARGS...]: tee a live stdio session into a scenario.
// Silent on success: stdout and stderr belong to the host's session. The exit status is the
// host's (128+N for signal N); msptk's own failures use the exit-code contract.
// msptk record --script SCRIPT --out DIR [options] -- HOST [ARGS...]: msptk is the client, playing
// SCRIPT (script/); --check only checks SCRIPT. A step that cannot complete is SCRIPT:LINE and
// exit 1 (3 when the host closed its output), the recording so far kept.
#include "environment_options.hpp"
#include "option_checks.hpp"
#include "masking.hpp"
#include "verbs.hpp"

#include "msptk/normalizer/corpus_file.hpp"
#include "msptk/normalizer/path.hpp"
#include "msptk/process/stop_ladder.hpp"
#include "msptk/recorder/recorder.hpp"
#include "msptk/script/command_id.hpp"
#include "msptk/script/scripted_record.hpp"
#include "msptk/validator/validator.hpp"

#include <fmt/format.h>

#include <memory>
#include <optional>

namespace msptk::cli {

namespace {

// The largest frame limit a JSON reader holds exactly (2^53 - 1); larger values are refused,
// never clamped.
constexpr std::int64_t kMaxFrameLimitBytes = 9007199254740991;

bool is_fingerprint(std::string_view text) {
  if (text.size() != 71 || text.substr(0, 7) != "sha256:") return false;
  for (char c : text.substr(7))
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

struct RecordCli {
  recorder::RecordOptions options;
  process::EnvironmentOptions environment;
  std::string script;  // --script
  bool check = false;  // --check
  std::int64_t seed = script::kDefaultCommandIdSeed;
  bool seed_given = false;
  std::vector<std::string> normalize_files;  // --normalize-file
  std::string registry;                      // --registry
};

// Everything the manifest will hold is checked before the host is spawned, with validate's own
// rules and the registry the other verbs will read (the corpus file above DIR, --registry): a
// scenario they would refuse is never written (exit 2, nothing written).
Result<void> check_manifest_to_write(const RecordCli& cli, const recorder::RecordOptions& options) {
  auto registry = explicit_registry(cli.registry);
  if (!registry) return registry.error();
  const std::string scenario = options.scenario.empty() ? recorder::default_scenario_id(options.out) : options.scenario;
  if (auto id = recorder::check_scenario_id(scenario); !id) return {};  // record() refuses it with its own words
  for (const Finding& finding :
       check_manifest_before_writing(recorder::initial_manifest(options, scenario), options.out, *registry)) {
    if (finding.severity != Severity::error) continue;
    // Without --fingerprint the pin comes from the host's initialize result, once it answers.
    if (options.fingerprint.empty() && finding.rule == "manifest.fingerprint") continue;
    return Error::usage(fmt::format("record would write a manifest that validate refuses, so nothing was recorded: {} [{}]",
                                    finding.message, finding.rule));
  }
  return {};
}

// Each warning names its file of DIR (transcript.ndjson unless said otherwise) and line (none
// for a warning about the whole file).
void print_warnings(Streams io, const recorder::RecordOutcome& outcome) {
  for (const auto& warning : outcome.warnings) {
    const std::string file = (outcome.dir / (warning.file.empty() ? "transcript.ndjson" : warning.file)).string();
    if (warning.line) io.err << fmt::format("msptk: warning: {}:{}: {}\n", file, warning.line, warning.message);
    else io.err << fmt::format("msptk: warning: {}: {}\n", file, warning.message);
  }
}

// record --script, once the script has parsed and the options are checked.
int run_scripted(const RecordCli& cli, const script::Script& parsed, const recorder::RecordOptions& options,
                 Streams io) {
  recorder::RecordEnv env = recorder::RecordEnv::system();
  env.ignore_stop_signals_after = true;
  auto outcome = script::record_script(parsed, options, {cli.seed, options.clock_start_ms}, env);
  if (!outcome) return report_error(io, outcome.error());
  print_warnings(io, outcome->record);
  if (outcome->record.recording_failure) {
    io.err.flush();
    return report_error(io, *outcome->record.recording_failure);
  }
  if (outcome->play.failure) {
    const int code = report_error(io, *outcome->play.failure);
    io.err << fmt::format("msptk: note: {} holds the recording up to that step (capture.status \"incomplete\")\n",
                          outcome->record.dir.string());
    return code;
  }
  return outcome->record.exit.shell_code();
}

int run_record(const RecordCli& cli, Streams io) {
  if (cli.script.empty() && (cli.check || cli.seed_given))
    return report_error(io, Error::usage(fmt::format("{} is for a script: give --script SCRIPT",
                                                     cli.check ? "--check" : "--seed")));
  // A script is checked before anything else happens (and is all --check does).
  std::optional<script::Script> to_play;
  if (!cli.script.empty()) {
    auto read = script::read_script(cli.script);
    if (!read) return report_error(io, read.error());
    if (cli.check) {
      io.out << fmt::format("{}: {} steps, ok\n", read->file, read->steps.size());
      return 0;
    }
    to_play = std::move(*read);
    if (auto problem = script::clock_start_problem(cli.options.clock_start_ms, to_play->minted_command_ids()))
      return report_error(io, Error::usage(*problem));
  }
  auto plan = environment_plan(cli.environment);
  if (!plan) return report_error(io, plan.error());
  recorder::RecordOptions options = cli.options;
  options.environment = std::move(*plan);
  for (const auto& file : cli.normalize_files) {
    auto paths = read_path_list(file);
    if (!paths) return report_error(io, paths.error());
    options.normalize.insert(options.normalize.end(), paths->begin(), paths->end());
  }
  for (const auto& path : options.normalize) {
    if (auto parsed = JsonPath::parse(path); !parsed) return report_error(io, Error::usage(parsed.error().message));
  }
  if (!options.fingerprint.empty() && !is_fingerprint(options.fingerprint))
    return report_error(io, Error::usage(fmt::format("--fingerprint \"{}\" is not sha256:<64 lowercase hex>",
                                                     options.fingerprint)));
  if (auto checked = check_manifest_to_write(cli, options); !checked) return report_error(io, checked.error());
  if (to_play) return run_scripted(cli, *to_play, options, io);
  recorder::RecordEnv env = recorder::RecordEnv::system();
  env.ignore_stop_signals_after = true;  // the recording is final once written (signals.hpp)
  auto outcome = recorder::record(options, env);
  if (!outcome) return report_error(io, outcome.error());
  print_warnings(io, *outcome);
  if (outcome->recording_failure) {
    io.err.flush();
    return report_error(io, *outcome->recording_failure);
  }
  return outcome->exit.shell_code();
}

}  // namespace

Runner setup_record(CLI::App& app) {
  auto cli = std::make_shared<RecordCli>();
  recorder::RecordOptions* options = &cli->options;
  CLI::App* sub = app.add_subcommand(
      "record", "Spawn HOST and tee its stdio session into the scenario folder DIR (use -- before HOST)");
  CLI::Option* out = sub->add_option("--out", options->out, "the scenario folder to write (created 0700; must be empty); required unless --check")
                         ->check(folder_check());
  sub->add_option("--scenario", options->scenario, "scenario id for the manifest (default: DIR's name)");
  sub->add_option("--frame-limit-bytes", options->frame_limit_bytes,
                  "frame cap the host runs with: {frameLimitBytes} in ARGS, MSP_FRAME_LIMIT_BYTES")
      ->check(number_check(1, kMaxFrameLimitBytes))
      ->default_val(kDefaultFrameLimitBytes);
  sub->add_option("--id-seed", options->id_seed, "id seed: {idSeed} in ARGS, MSP_ID_SEED")
      ->check(number_check(0))
      ->default_val(kDefaultIdSeed);
  sub->add_option("--clock-start-ms", options->clock_start_ms, "clock start: {clockStartMs} in ARGS, MSP_CLOCK_START_MS")
      ->check(number_check(0))
      ->default_val(kDefaultClockStartMs);
  sub->add_option("--normalize", options->normalize, "a nondeterministic path to declare in the manifest (repeatable); it must be registered: built in, in "
                  "the msptk-corpus.json above DIR, or in --registry")
      ->allow_extra_args(false);
  sub->add_option("--normalize-file", cli->normalize_files,
                  "Declare the paths of FILE too (one a line, # comments; repeatable)")
      ->type_name("FILE")
      ->allow_extra_args(false);
  add_registry_option(*sub, cli->registry);
  sub->add_option("--fingerprint", options->fingerprint,
                  "schema fingerprint to pin when the host's initialize result carries none");
  sub->add_option("--close-timeout-ms", options->close_timeout_ms,
                  "how long HOST may take to exit once its stdin closed or a signal was forwarded, before msptk "
                  "sends SIGTERM to its process group (and SIGKILL after as long again)")
      ->check(number_check(1, 86400000))
      ->default_val(process::kDefaultCloseTimeoutMs);
  sub->add_flag("--force", options->force, "record into a non-empty DIR (replaces its transcript, manifest, log), and replace an existing --wire-log FILE");
  sub->add_option("--redact", options->redact,
                  "Replace the value at PATH (normalize's path grammar: params.apiKey, params.headers.*) with "
                  "\"<redacted:N>\" before it is written (repeatable): in the transcript, an unfinished frame and host-stderr.log; "
                  "forwarded bytes are untouched")
      ->type_name("PATH")
      ->allow_extra_args(false);
  sub->add_option("--wire-log", options->wire_log,
                  "Also write every chunk read, as read, to FILE: one JSON line each (see msptk wire-log); a new "
                  "0600 file (an existing FILE or a symbolic link is refused unless --force)")
      ->check(file_check())
      ->type_name("FILE");
  add_environment_options(*sub, cli->environment);
  sub->add_option("--script", cli->script,
                  "Be the client: play SCRIPT (NDJSON steps, docs/script.md) against HOST instead of forwarding stdin")
      ->check(file_check())
      ->type_name("SCRIPT");
  sub->add_flag("--check", cli->check, "with --script: check SCRIPT and exit (no HOST, no --out)");
  CLI::Option* seed = sub->add_option("--seed", cli->seed,
                  "with --script: seed of the commandIds minted for commands (UUIDv7), kept in seeds.commandIdSeed")
      ->check(number_check(std::numeric_limits<std::int64_t>::min()))
      ->default_val(script::kDefaultCommandIdSeed);
  CLI::Option* host = sub->add_option("HOST", options->host_argv, "HOST [ARGS...]: the host command, spawned without a shell");
  // --out and HOST are required unless --check only checks a script.
  sub->parse_complete_callback([cli, out, host, seed] {
    cli->seed_given = seed->count() > 0;
    if (cli->check) return;
    if (out->count() == 0) throw CLI::RequiredError("--out");
    if (host->count() == 0) throw CLI::RequiredError("HOST");
  });
  return [cli](Streams io) { return run_record(*cli, io); };
}

}  // namespace msptk::cli
