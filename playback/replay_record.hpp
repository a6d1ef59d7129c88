// Internal to playback: where the frames of a replay go. The recorder's Tee cuts both
// directions into frames (client lines as they are written, server bytes as they are read) and
// hands each to a LiveSink, which numbers it as a line of the live session, appends it to
// OUT/transcript.ndjson when the run is recorded, and queues server frames for the session to
// compare. A ReplayRecording is the --record OUT folder: the transcript, host-stderr.log and a
// manifest written at the start and rewritten at the end with the recorder's `capture` member.
#pragma once

#include "msptk/process/host_process.hpp"
#include "msptk/recorder/capture.hpp"
#include "msptk/recorder/clock.hpp"
#include "msptk/recorder/tee.hpp"
#include "msptk/transcript/manifest.hpp"
#include "msptk/transcript/writer.hpp"

#include <deque>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::playback {

class LiveSink final : public recorder::FrameSink {
 public:
  // Never fails (a write failure is kept in failure() and recording stops), so the Tee keeps
  // delivering frames to the session.
  Result<void> append(Direction dir, std::string_view bytes) override;

  void record_to(TranscriptWriter writer) { writer_.emplace(std::move(writer)); }
  std::size_t lines() const { return lines_; }
  std::deque<Frame>& server_frames() { return server_frames_; }
  const std::optional<Error>& failure() const { return failure_; }

 private:
  std::optional<TranscriptWriter> writer_;
  std::size_t lines_ = 0;
  std::deque<Frame> server_frames_;
  std::optional<Error> failure_;
};

class ReplayRecording {
 public:
  // Prepares OUT (created 0700, must be empty), opens its transcript into `sink` and writes the
  // first manifest: `source`'s, renamed after OUT, host-generated over stdio, with `capture`.
  static Result<ReplayRecording> start(const std::filesystem::path& out, const Manifest& source,
                                       const std::vector<std::string>& host_argv,
                                       const recorder::EnvironmentSummary& environment, const recorder::Clock& clock,
                                       LiveSink& sink);
  ReplayRecording(ReplayRecording&&) noexcept;
  ReplayRecording& operator=(ReplayRecording&&) = delete;
  ~ReplayRecording();

  void write_stderr(std::string_view bytes);
  // The run is played under chaos: the final manifest's capture says so
  // ("chaos": {"spec": "split,merge", "seed": N}, after the recorder's members).
  void set_chaos(std::string spec, std::uint64_t seed) { chaos_ = boost::json::object{{"spec", spec}, {"seed", seed}}; }
  // The final manifest; returns the first failure to write any of the three files.
  std::optional<Error> finish(const recorder::Tee& tee, const std::optional<process::ExitStatus>& exit,
                              std::uint64_t stderr_bytes, const recorder::StopInfo& stop, const LiveSink& sink);
  // The host could not be started: removes what start() created.
  void abandon();

 private:
  ReplayRecording() = default;
  std::filesystem::path dir_;
  bool created_dir_ = false;
  Manifest manifest_;
  recorder::CaptureInfo info_;
  std::string replayed_;
  const recorder::Clock* clock_ = nullptr;
  int stderr_fd_ = -1;
  std::optional<Error> failure_;
  std::optional<boost::json::object> chaos_;
};

}  // namespace msptk::playback
