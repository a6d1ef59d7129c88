// replay_scenario: everything before and after the live session (replay.hpp).
#include "msptk/playback/replay.hpp"

#include "frame_feed.hpp"
#include "replay_record.hpp"
#include "replay_session.hpp"

#include "msptk/playback/serve_fixture.hpp"
#include "msptk/process/signals.hpp"
#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/json_locate.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/scenario.hpp"

#include <fmt/format.h>

#include <csignal>

namespace msptk {

namespace fs = std::filesystem;

namespace {

// The manifest members replay depends on: the pins the host is started with and the provenance
// (sdk-tolerance is refused); mask_spec_for refuses a bad normalize list. A problem there is
// fatal; others (a stale fingerprint, a bad source range) are validate's business.
Result<void> check_manifest(const Scenario& scenario) {
  const std::string file = scenario.files.manifest->string();
  for (const ManifestProblem& problem : scenario.manifest_problems) {
    const std::string& m = problem.member;
    if (!m.starts_with("serverConfig") && !m.starts_with("seeds") && m != "provenance") continue;
    std::size_t line = 1;
    if (auto text = read_file(*scenario.files.manifest)) line = line_of_path(*text, m);
    return Error::malformed(file, line, problem.rule, problem.message);
  }
  return {};
}

}  // namespace

ReplayEnv ReplayEnv::system() {
  static const recorder::SystemClock clock;
  ReplayEnv env;
  env.clock = &clock;
  env.spawn = [](const process::SpawnSpec& spec) { return process::spawn_host(spec); };
  return env;
}

Result<ReplayResult> replay_scenario(const ReplayOptions& options) {
  ReplayEnv env = ReplayEnv::system();
  return replay_scenario(options, env);
}

Result<ReplayResult> replay_scenario(const ReplayOptions& options, ReplayEnv& env) {
  if (options.host_argv.empty()) return Error::usage("no HOST given: msptk replay --transcript DIR -- HOST [ARGS...]");
  if (options.timeout_ms <= 0)
    return Error::usage(fmt::format("--timeout-ms must be positive, got {}", options.timeout_ms));
  if (options.close_timeout_ms <= 0)
    return Error::usage(fmt::format("--close-timeout-ms must be positive, got {}", options.close_timeout_ms));
  auto scenario = load_scenario(options.scenario);
  if (!scenario) return scenario.error();
  // Validate first, as serve-fixture does: an empty transcript, a schemaVersion from the
  // future, CRLF lines or a scenario id that is not the folder's name are never played.
  if (!options.validated && scenario->files.manifest) {
    if (auto valid = playback::require_valid_scenario(scenario->files.dir, options.registry, true); !valid)
      return valid.error();
  }
  if (!scenario->files.manifest)
    return Error::unreadable((scenario->files.dir / "manifest.json").string(),
                             "missing: replay starts the host with the scenario's pinned configuration");
  if (auto ok = check_manifest(*scenario); !ok) return ok.error();
  const Manifest& manifest = scenario->manifest;
  if (manifest.is_sdk_tolerance())
    return Error::usage(fmt::format(
        "{}: scenario \"{}\" is sdk-tolerance: it holds shapes a real host cannot emit, so it cannot be replayed "
        "against a host (serve-fixture plays it to clients)",
        scenario->files.dir.string(), manifest.scenario));
  auto spec = mask_spec_for(*scenario, options.registry, options.extra_paths, options.mask);
  if (!spec) return spec.error();
  // The transcript is read as the session walks it (frame_feed.hpp), never held whole.
  auto feed = playback::FrameFeed::open(scenario->files.transcript);
  if (!feed) return feed.error();

  recorder::RecordOptions pins;
  pins.frame_limit_bytes = manifest.frame_limit_bytes;
  pins.id_seed = manifest.id_seed;
  pins.clock_start_ms = manifest.clock_start_ms;

  ReplayResult result;
  result.scenario = manifest.scenario;
  result.host_argv = recorder::expand_placeholders(options.host_argv, pins);
  result.report.expected_file = scenario->files.transcript.string();
  result.report.actual_file = options.record_dir ? (*options.record_dir / "transcript.ndjson").string() : "live session";
  result.report.side = Side::server;
  result.report.mode = spec->mode;
  for (const JsonPath& path : spec->declared) result.report.masks.push_back(MaskUse{path.text(), 0, 0});
  for (const fs::path& leg : scenario->files.legs)
    result.report.warnings.push_back(
        fmt::format("{} not replayed: replay plays the main transcript only (a legs file is another connection)",
                    leg.string()));

  auto host_env = process::HostEnvironment::prepare(options.environment, result.host_argv.front(),
                                                    recorder::pinned_environment(pins));
  if (!host_env) return host_env.error();

  playback::LiveSink sink;
  std::optional<playback::ReplayRecording> recording;
  if (options.record_dir) {
    auto started = playback::ReplayRecording::start(*options.record_dir, manifest, result.host_argv,
                                                    {host_env->hermetic(), host_env->given_names()}, *env.clock, sink);
    if (!started) return started.error();
    recording.emplace(std::move(*started));
    if (options.chaos) recording->set_chaos(chaos::to_string(options.chaos->spec), options.chaos->seed);
    result.record_dir = options.record_dir;
  }

  // Signals stop the run (the host is killed, the recording finished) instead of killing
  // msptk with its host left behind; writing to a host that died fails with EPIPE.
  std::optional<process::SignalPipe> signals;
  if (env.handle_signals) {
    auto pipe = process::SignalPipe::create({SIGINT, SIGTERM, SIGHUP, SIGCHLD});
    if (pipe) signals.emplace(std::move(*pipe));
    if (signals && env.ignore_stop_signals_after) signals->ignore_after_release({SIGINT, SIGTERM, SIGHUP});
  }
  process::SigpipeIgnored sigpipe;

  process::SpawnSpec spawn;
  spawn.argv = result.host_argv;
  host_env->apply(spawn);
  auto host = env.spawn(spawn);
  if (!host) {
    if (recording) recording->abandon();
    result.record_dir.reset();
    result.exit_code = 3;
    result.problem = host.error().render();
    result.spawn_failure = host.error();
    return result;
  }

  // With --record OUT, frames over the memory limit and an unterminated tail are streamed to
  // OUT like the recorder does (pending_frame.hpp).
  recorder::Spill spill;
  if (options.record_dir) spill = recorder::Spill{&recorder::system_disk(), *options.record_dir};
  recorder::Tee tee(sink, static_cast<std::uint64_t>(pins.frame_limit_bytes), spill);
  auto on_stderr = [&](std::string_view bytes) {
    if (recording) recording->write_stderr(bytes);
    if (env.host_stderr) env.host_stderr(bytes);
  };
  playback::HostLink link(**host, tee, sink, signals ? &*signals : nullptr, on_stderr);
  FrameComparer comparer(*spec);
  // Under erase the comparer pairs nothing; a unify-mode twin learns what to carry.
  std::optional<FrameComparer> twin;
  if (spec->erases_any()) {
    MaskSpec unify = *spec;
    unify.mode = MaskMode::unify;
    unify.compare.assign(unify.declared.size(), PathCompare{});
    twin.emplace(std::move(unify));
  }
  playback::SessionConfig config{options.timeout_ms, result.report.expected_file, result.report.actual_file,
                                 options.close_timeout_ms, options.keep_going,
                                 options.chaos ? &*options.chaos : nullptr};
  playback::run_session(*feed, link, tee, sink, comparer, twin ? &*twin : nullptr, config, result);
  result.host_stderr_tail = link.stderr_tail();

  if (recording) {
    recorder::StopInfo stop{options.close_timeout_ms, result.host_killed, link.group_outlived_host(),
                            link.stop_signals()};
    if (auto failure = recording->finish(tee, link.exit(), link.stderr_bytes(), stop, sink)) {
      result.recording_failure = failure;
      if (result.exit_code == 0) {
        result.exit_code = 3;
        result.problem = fmt::format("the run passed but its recording failed: {}", failure->render());
      }
    }
  }
  return result;
}

}  // namespace msptk
