#include "msptk/recorder/recorder.hpp"

#include "msptk/process/fd_io.hpp"
#include "msptk/process/signals.hpp"
#include "msptk/recorder/capture.hpp"
#include "msptk/recorder/disk.hpp"
#include "msptk/recorder/pending_frame.hpp"
#include "msptk/recorder/stderr_log.hpp"
#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/line_encoder.hpp"
#include "msptk/transcript/writer.hpp"
#include "msptk/wirelog/wire_log.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace msptk::recorder {

namespace fs = std::filesystem;

namespace {

constexpr fs::perms kPrivateFile = fs::perms::owner_read | fs::perms::owner_write;

// DIR/transcript.ndjson through the Disk: the lines of one read chunk are staged and written
// with one checked write before the chunk is forwarded (never an fsync on the way); a frame too
// big to hold is streamed from its spill file. After a failed write the part of a line that
// made it to disk is cut off again, so the transcript holds whole lines only (every frame
// completed before the failure stays).
class TranscriptSink final : public FrameSink {
 public:
  explicit TranscriptSink(std::unique_ptr<OutFile> out) : out_(std::move(out)) {}
  Result<void> append(Direction dir, std::string_view bytes) override {
    append_canonical_line(staged_, dir, bytes);
    return {};
  }
  Result<bool> append_frame(Direction dir, std::string_view bytes) override {
    return append_canonical_line(staged_, dir, bytes);
  }
  Result<void> end_of_chunk() override { return flush(); }
  Result<bool> append_spilled(Direction dir, const PendingFrame& frame) override {
    if (auto ok = flush(); !ok) return ok.error();
    auto ok = write_spilled_line(dir, frame, *out_);
    if (ok) {
      complete_ = out_->size();
    } else {
      (void)out_->truncate(complete_);
    }
    return ok;
  }
  // The end of the recording: what is staged, then fsync and close, all checked.
  Result<void> finish() {
    if (auto ok = flush(); !ok) return ok;
    if (auto ok = out_->sync(); !ok) return ok;
    return out_->close();
  }

 private:
  Result<void> flush() {
    if (staged_.empty()) return {};
    auto ok = out_->write(staged_.view());
    if (!ok) {
      // Keep the whole lines that made it, take back the rest.
      const std::uint64_t made = out_->size() - complete_;
      const std::size_t lf = staged_.view().substr(0, static_cast<std::size_t>(made)).rfind('\n');
      if (lf != std::string_view::npos) complete_ += lf + 1;
      (void)out_->truncate(complete_);
    }
    complete_ = ok ? out_->size() : complete_;
    // Keep the buffer of a usual chunk for the next one; give back that of a large frame.
    if (staged_.capacity() > kKeptStaging) {
      staged_.release();
    } else {
      staged_.clear();
    }
    return ok;
  }

  static constexpr std::size_t kKeptStaging = 1 << 20;
  std::unique_ptr<OutFile> out_;
  LineBuffer staged_;
  std::uint64_t complete_ = 0;  // bytes of whole lines on disk
};


constexpr const char* kRecordedFiles[] = {"transcript.ndjson", "manifest.json",          "host-stderr.log",
                                          "client.partial",    "server.partial",         "client-unterminated.bin",
                                          "server-unterminated.bin"};

// Removes what a failed start left behind: our files, and DIR itself when we created it.
void clean_up(const fs::path& dir, bool created_dir) {
  std::error_code ec;
  for (const char* name : kRecordedFiles) fs::remove(dir / name, ec);
  if (created_dir) fs::remove(dir, ec);
}

// A wire log in DIR under the name of a file the recording writes would be overwritten by it.
Result<void> check_wire_log_path(const fs::path& wire_log, const fs::path& out) {
  std::error_code ec;
  const fs::path log = fs::weakly_canonical(fs::absolute(wire_log, ec), ec);
  const fs::path dir = fs::weakly_canonical(fs::absolute(out, ec), ec);
  if (log.parent_path() != dir) return {};
  for (const char* name : kRecordedFiles)
    if (log.filename() == name)
      return Error::usage(fmt::format("--wire-log {}: the recording writes {} in DIR itself; choose another file",
                                      wire_log.string(), name));
  return {};
}

Result<void> write_manifest_to(Disk& disk, const fs::path& path, const Manifest& manifest) {
  return disk.replace(path, pretty(manifest.to_json()) + "\n", kPrivateFile);
}

}  // namespace

Manifest initial_manifest(const RecordOptions& options, const std::string& scenario) {
  Manifest m;
  m.scenario = scenario;
  m.provenance = "host-generated";
  m.fingerprint = options.fingerprint;
  m.view_schema_version = 1;
  m.frame_limit_bytes = options.frame_limit_bytes;
  m.transports = {"stdio"};
  m.normalize = options.normalize;
  m.id_seed = options.id_seed;
  m.clock_start_ms = options.clock_start_ms;
  m.seeds_extra = options.seeds_extra;
  return m;
}

RecordEnv RecordEnv::system() {
  static const SystemClock clock;
  RecordEnv env;
  env.clock = &clock;
  env.spawn = [](const process::SpawnSpec& spec) { return process::spawn_host(spec); };
  env.disk = &system_disk();
  return env;
}

Result<RecordOutcome> record(const RecordOptions& options, RecordEnv& env) {
  if (options.host_argv.empty()) return Error::usage("no HOST given: msptk record --out DIR -- HOST [ARGS...]");
  if (options.out.empty()) return Error::usage("--out is empty: give the scenario folder to record into");
  if (options.close_timeout_ms <= 0)
    return Error::usage(fmt::format("--close-timeout-ms must be positive, got {}", options.close_timeout_ms));
  if (options.frame_limit_bytes <= 0)
    return Error::usage(fmt::format("--frame-limit-bytes must be positive, got {}", options.frame_limit_bytes));
  if (!options.wire_log.empty() && !options.redact.empty())
    return Error::usage("--wire-log keeps the raw bytes, secrets included: it cannot be combined with --redact");
  const std::string scenario = options.scenario.empty() ? default_scenario_id(options.out) : options.scenario;
  if (auto ok = check_scenario_id(scenario); !ok) return ok.error();

  // Signals from here on, before anything is written: one arriving while the recording is
  // prepared stops it before a host is started (below), one arriving during the spawn is
  // forwarded to the host rather than lost.
  std::optional<process::SignalPipe> signals;
  std::optional<process::SigpipeIgnored> sigpipe;
  if (env.handle_signals) {
    auto pipe = process::SignalPipe::create({SIGINT, SIGTERM, SIGHUP, SIGCHLD});
    if (!pipe) return pipe.error();
    signals.emplace(std::move(*pipe));
    sigpipe.emplace();
  }

  std::error_code ec;
  // The wire log before anything is removed or created: a new file of its own (never an
  // existing one unless --force, never through a symbolic link), taken back when no host runs.
  std::optional<wirelog::WireLogWriter> wire_log;
  if (!options.wire_log.empty()) {
    if (auto ok = check_wire_log_path(options.wire_log, options.out); !ok) return ok.error();
    auto created = wirelog::WireLogWriter::create(options.wire_log, {}, options.force);
    if (!created) return created.error();
    wire_log.emplace(std::move(*created));
  }
  const bool created_dir = !fs::exists(fs::symlink_status(options.out, ec));
  if (auto ok = prepare_scenario_dir(options.out, options.force); !ok) return ok.error();
  const fs::path dir = options.out;

  // Files first: no host runs unless there is somewhere to record it. With --force, old files
  // are removed rather than truncated so the new ones get 0600 whatever the old ones had.
  for (const char* name : kRecordedFiles) fs::remove(dir / name, ec);
  Disk& disk = env.disk ? *env.disk : system_disk();
  auto transcript = disk.create(dir / "transcript.ndjson", kPrivateFile);
  if (!transcript) {
    clean_up(dir, created_dir);
    return transcript.error();
  }
  TranscriptSink sink(std::move(*transcript));
  auto redactor = Redactor::create(options.redact);
  if (!redactor) {
    clean_up(dir, created_dir);
    return redactor.error();
  }
  auto log = StderrLog::create(disk, dir, &*redactor);
  if (!log) {
    clean_up(dir, created_dir);
    return log.error();
  }
  StderrLog& stderr_log = *log;
  CaptureInfo info;
  info.redactor = &*redactor;
  if (wire_log) info.wire_log = options.wire_log.string();
  info.host_argv = expand_placeholders(options.host_argv, options);
  auto host_env = process::HostEnvironment::prepare(options.environment, info.host_argv.front(),
                                                    pinned_environment(options));
  if (!host_env) {
    clean_up(dir, created_dir);
    return host_env.error();
  }
  info.environment = {host_env->hermetic(), host_env->given_names()};
  info.started_at = format_utc(env.clock->now());
  info.stop.close_timeout_ms = options.close_timeout_ms;
  Manifest manifest = initial_manifest(options, scenario);
  manifest.capture = capture_json(info);
  if (auto ok = write_manifest_to(disk, dir / "manifest.json", manifest); !ok) {
    clean_up(dir, created_dir);
    return ok.error();
  }

  process::SpawnSpec spec;
  spec.argv = info.host_argv;
  host_env->apply(spec);
  // A stop signal that arrived while the recording was being prepared ends it here: no host
  // is started for a user who already asked to stop.
  if (signals) {
    for (int signo : signals->take()) {
      if (signo == SIGCHLD) continue;
      clean_up(dir, created_dir);
      return Error{ErrorKind::spawn,
                   fmt::format("{} arrived before the host was started: nothing recorded, no host started",
                               process::signal_name(signo)),
                   "", 0, ""};
    }
  }
  auto host = env.spawn(spec);
  if (!host) {
    clean_up(dir, created_dir);
    return host.error();  // the wire log, never committed, is removed with its writer
  }
  if (wire_log) {
    if (auto ok = wire_log->commit(); !ok) {
      clean_up(dir, created_dir);
      return ok.error();  // the host is killed and reaped by its destructor
    }
  }

  Tee tee(sink, static_cast<std::uint64_t>(options.frame_limit_bytes), Spill{&disk, dir, env.memory_limit});
  tee.redact_with(&*redactor);
  info.tee = &tee;
  Wiring wiring = env.wiring;
  wiring.stderr_copy = [&](std::string_view bytes) {
    stderr_log.write(bytes);
    if (env.wiring.stderr_copy) env.wiring.stderr_copy(bytes);
  };
  if (wire_log) wiring.on_chunk = [&](Direction d, std::string_view chunk) { wire_log->append(d, chunk); };
  auto session = forward_session(**host, tee, wiring, signals ? &*signals : nullptr, options.close_timeout_ms);
  if (!session) return session.error();  // the host is killed and reaped by its destructor
  stderr_log.finish();  // under --redact: scrubbed of every value replaced in the session, now all known
  boost::json::object client_capture;
  if (env.client_done) client_capture = env.client_done();

  info.ended_at = format_utc(env.clock->now());
  info.exit = session->exit;
  info.host_stderr_bytes = session->stderr_bytes;
  info.signals_forwarded = session->signals_forwarded;
  info.stop.host_did_not_exit = session->host_did_not_exit;
  info.stop.group_outlived_host = session->group_outlived_host;
  info.stop.stop_signals = session->stop_signals;
  info.client_gone = session->client_gone;
  if (wire_log) info.wire_log_chunks = wire_log->chunks();
  if (tee.fingerprint()) {
    manifest.fingerprint = *tee.fingerprint();
    info.fingerprint_source = "initialize";
  } else if (!options.fingerprint.empty()) {
    info.fingerprint_source = "option";
  }
  manifest.capture = capture_json(info);
  for (const auto& member : client_capture) (*manifest.capture)[member.key()] = member.value();

  RecordOutcome outcome;
  outcome.dir = dir;
  outcome.exit = session->exit;
  if (tee.failure()) outcome.recording_failure = tee.failure();
  else if (stderr_log.failure()) outcome.recording_failure = stderr_log.failure();
  else if (wire_log && wire_log->failure()) outcome.recording_failure = wire_log->failure();
  if (auto ok = write_manifest(dir / "manifest.json", manifest, kPrivateFile); !ok && !outcome.recording_failure)
    outcome.recording_failure = ok.error();
  outcome.warnings = redactor->warnings();
  outcome.manifest = std::move(manifest);
  if (signals && env.ignore_stop_signals_after) signals->ignore_after_release({SIGINT, SIGTERM, SIGHUP});
  return outcome;
}

}  // namespace msptk::recorder
