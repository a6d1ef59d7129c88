// Internal to playback: the live half of replay. A HostLink drives one host's three pipes from a
// poll loop (its stdin written without ever blocking while the host's stdout and stderr keep
// being read, so neither side can deadlock the other); run_session walks the transcript over
// it, comparing and carrying (replay.hpp).
#pragma once

#include "replay_record.hpp"

#include "msptk/chaos/plan.hpp"
#include "msptk/differ/comparer.hpp"
#include "msptk/playback/replay.hpp"
#include "msptk/process/host_process.hpp"
#include "msptk/process/signals.hpp"
#include "msptk/process/stop_ladder.hpp"
#include "msptk/recorder/tee.hpp"

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::playback {

class FrameFeed;

using SteadyClock = std::chrono::steady_clock;

class HostLink {
 public:
  HostLink(process::HostProcess& host, recorder::Tee& tee, LiveSink& sink, process::SignalPipe* signals,
           std::function<void(std::string_view)> on_stderr);

  enum class Event { frame, closed, timeout, broken, interrupted, done };

  // Waits until a server frame is queued in the sink (frame), the host's stdout ended (closed:
  // EOF, or the host exited and its pipe was drained), the deadline passed, or a signal came.
  Event wait_frame(SteadyClock::time_point deadline);
  // Writes all of `bytes` to the host's stdin (done), reading its stdout and stderr meanwhile.
  // broken: the host no longer reads its stdin.
  Event write(std::string_view bytes, SteadyClock::time_point deadline);
  void close_stdin() { host_.close_stdin(); }
  // Reads the host's pipes for `pause` (a chaos pause: msptk keeps reading while it waits).
  void idle(std::chrono::microseconds pause);
  // chaos stall=MS: before the read of the host's stdout the plan picks, msptk sleeps MS.
  void stall_with(chaos::StallPlan* plan) { stall_ = plan; }
  // Closes the host's stdin and waits for it to exit until the deadline (reading its pipes
  // meanwhile); then ends its process group with a StopLadder (SIGTERM, SIGKILL after the
  // close timeout) and returns once the group is empty. Returns true when msptk had to signal
  // the host itself (it did not exit).
  bool finish(SteadyClock::time_point deadline, int close_timeout_ms);
  // Waits (reading) until the host exited or the deadline passed.
  std::optional<process::ExitStatus> await_exit(SteadyClock::time_point deadline);

  std::optional<process::ExitStatus> exit() const { return exit_; }
  int interrupted_by() const { return signal_; }
  std::uint64_t stderr_bytes() const { return stderr_bytes_; }
  const std::string& stderr_tail() const { return stderr_tail_; }
  // After finish(): the signals msptk sent to end the group, and whether processes of the
  // group outlived the host.
  const std::vector<int>& stop_signals() const { return stop_signals_; }
  bool group_outlived_host() const { return group_outlived_host_; }

 private:
  // One round of poll: reads what is readable, writes what it can of `pending`.
  void pump(int timeout_ms, std::string_view* pending, bool* broken);
  bool read_stdout();
  bool read_stderr();
  void check_exit();

  process::HostProcess& host_;
  recorder::Tee& tee_;
  LiveSink& sink_;
  process::SignalPipe* signals_;
  std::function<void(std::string_view)> on_stderr_;
  bool out_open_, err_open_;
  std::optional<process::ExitStatus> exit_;
  int signal_ = 0;
  std::uint64_t stderr_bytes_ = 0;
  std::string stderr_tail_;
  std::vector<char> buffer_;
  std::vector<int> stop_signals_;
  bool group_outlived_host_ = false;
  chaos::StallPlan* stall_ = nullptr;
};

struct SessionConfig {
  int timeout_ms = 10000;
  std::string expected_file;  // the scenario's transcript
  std::string actual_file;    // OUT/transcript.ndjson, or "live session"
  int close_timeout_ms = 5000;  // --close-timeout-ms (stop_ladder.hpp)
  bool keep_going = false;    // a divergent frame does not stop the run (ReplayOptions::keep_going)
  const chaos::ChaosRun* chaos = nullptr;  // --chaos: how client lines are written (replay.hpp)
};

// Walks the recorded frames of `feed` against the host, one at a time as the feed reads them
// (the recorded frame at the cursor is all it holds of the transcript), filling result (report
// entries and counts, problem, exit_code, carried, counters; server_frames_expected counts the
// server lines as they are walked, and the rest of the feed once the session is over). `twin`
// holds the pairings carried into client lines under erase (a unify-mode twin fed the same
// frames); under unify the comparer itself does. A line of the feed that cannot be read (the
// transcript changed after it was validated) stops the run with exit 3.
void run_session(FrameFeed& feed, HostLink& link, recorder::Tee& tee, LiveSink& sink, FrameComparer& comparer,
                 FrameComparer* twin, const SessionConfig& config, ReplayResult& result);

}  // namespace msptk::playback
