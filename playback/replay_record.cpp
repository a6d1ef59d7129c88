#include "replay_record.hpp"

#include "msptk/process/fd_io.hpp"
#include "msptk/recorder/recorder.hpp"
#include "msptk/transcript/reader.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace msptk::playback {

namespace fs = std::filesystem;

namespace {

constexpr fs::perms kPrivateFile = fs::perms::owner_read | fs::perms::owner_write;
constexpr const char* kFiles[] = {"transcript.ndjson", "manifest.json", "host-stderr.log"};

}  // namespace

Result<void> LiveSink::append(Direction dir, std::string_view bytes) {
  ++lines_;
  if (writer_ && !failure_) {
    if (auto ok = writer_->append(dir, bytes); !ok) failure_ = ok.error();
  }
  if (dir == Direction::server) {
    if (is_valid_utf8(bytes)) {
      server_frames_.push_back(Frame{dir, std::string(bytes), std::nullopt, lines_});
    } else {
      // Exactly what reading the recorded line back gives: a lossy raw and the exact bytes.
      auto frame = parse_transcript_line(canonical_line(dir, bytes), "live session", lines_);
      if (frame) server_frames_.push_back(std::move(*frame));
    }
  }
  return {};
}

Result<ReplayRecording> ReplayRecording::start(const fs::path& out, const Manifest& source,
                                               const std::vector<std::string>& host_argv,
                                               const recorder::EnvironmentSummary& environment,
                                               const recorder::Clock& clock, LiveSink& sink) {
  std::error_code ec;
  ReplayRecording r;
  r.dir_ = out;
  r.created_dir_ = !fs::exists(out, ec);
  if (!r.created_dir_) {  // the recorder's checks, in replay's words (it has no --force)
    if (!fs::is_directory(out, ec)) return Error::usage(fmt::format("--record {}: not a folder", out.string()));
    if (!fs::is_empty(out, ec)) return Error::usage(fmt::format("--record {}: the folder is not empty", out.string()));
  }
  if (auto ok = recorder::prepare_scenario_dir(out, false); !ok) return ok.error();
  r.clock_ = &clock;

  r.manifest_ = source;
  r.manifest_.scenario = recorder::default_scenario_id(out);
  r.manifest_.provenance = "host-generated";
  r.manifest_.transports = {"stdio"};
  r.manifest_.regeneration_justification.reset();  // about the source's authoring, not this run
  r.replayed_ = source.scenario;
  r.info_.host_argv = host_argv;
  r.info_.started_at = recorder::format_utc(clock.now());
  r.info_.fingerprint_source = "none";
  r.info_.environment = environment;

  auto writer = TranscriptWriter::create(out / "transcript.ndjson", kPrivateFile);
  if (!writer) {
    r.abandon();
    return writer.error();
  }
  sink.record_to(std::move(*writer));
  const fs::path log = out / "host-stderr.log";
  r.stderr_fd_ = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (r.stderr_fd_ < 0) {
    Error error = Error::unreadable(log.string(), fmt::format("cannot create: {}", std::strerror(errno)));
    r.abandon();
    return error;
  }
  r.manifest_.capture = recorder::capture_json(r.info_);
  (*r.manifest_.capture)["recorder"] = "msptk replay";
  (*r.manifest_.capture)["replayOf"] = r.replayed_;
  if (auto ok = write_manifest(out / "manifest.json", r.manifest_, kPrivateFile); !ok) {
    r.abandon();
    return ok.error();
  }
  return r;
}

ReplayRecording::ReplayRecording(ReplayRecording&& other) noexcept
    : dir_(std::move(other.dir_)),
      created_dir_(other.created_dir_),
      manifest_(std::move(other.manifest_)),
      info_(std::move(other.info_)),
      replayed_(std::move(other.replayed_)),
      clock_(other.clock_),
      stderr_fd_(other.stderr_fd_),
      failure_(std::move(other.failure_)) {
  other.stderr_fd_ = -1;
}

ReplayRecording::~ReplayRecording() {
  if (stderr_fd_ >= 0) ::close(stderr_fd_);
}

void ReplayRecording::write_stderr(std::string_view bytes) {
  if (stderr_fd_ < 0 || failure_) return;
  process::IoResult r = process::write_all(stderr_fd_, bytes);
  if (r.error)
    failure_ = Error::unreadable((dir_ / "host-stderr.log").string(), fmt::format("cannot write: {}", std::strerror(r.error)));
}

std::optional<Error> ReplayRecording::finish(const recorder::Tee& tee, const std::optional<process::ExitStatus>& exit,
                                             std::uint64_t stderr_bytes, const recorder::StopInfo& stop,
                                             const LiveSink& sink) {
  info_.ended_at = recorder::format_utc(clock_->now());
  info_.stop = stop;
  info_.tee = &tee;
  info_.exit = exit;
  info_.host_stderr_bytes = stderr_bytes;
  if (tee.fingerprint()) {
    manifest_.fingerprint = *tee.fingerprint();
    info_.fingerprint_source = "initialize";
  }
  manifest_.capture = recorder::capture_json(info_);
  if (chaos_) (*manifest_.capture)["chaos"] = *chaos_;
  (*manifest_.capture)["recorder"] = "msptk replay";
  (*manifest_.capture)["replayOf"] = replayed_;
  info_.tee = nullptr;
  std::optional<Error> failure = sink.failure() ? sink.failure() : failure_;
  if (auto ok = write_manifest(dir_ / "manifest.json", manifest_, kPrivateFile); !ok && !failure) failure = ok.error();
  return failure;
}

void ReplayRecording::abandon() {
  if (stderr_fd_ >= 0) ::close(stderr_fd_);
  stderr_fd_ = -1;
  std::error_code ec;
  for (const char* name : kFiles) fs::remove(dir_ / name, ec);
  if (created_dir_) fs::remove(dir_, ec);
}

}  // namespace msptk::playback
