// Chaos streams put a chaos plan (chaos/plan.hpp) between serve-fixture's session and the
// descriptors it talks over: a ChaosSink writes what the session writes in the plan's writes
// (cut, merged, paused) and, with close-after=N, closes the peer's input once N frames are
// through (the write that reaches the N-th LF writes up to it, then fails with kCutError, and
// every later write too); a ChaosSource stalls once before the read the StallPlan picked. The
// bytes delivered are exactly the bytes given. Both keep what they did last, which a failure
// report names as the perturbation in force (in_force). Sleeping and closing are seams, so
// unit tests drive them over MemorySource/MemorySink without waiting.
#pragma once

#include "msptk/chaos/plan.hpp"
#include "msptk/chaos/spec.hpp"
#include "msptk/playback/byte_stream.hpp"

#include <cerrno>
#include <functional>
#include <optional>
#include <string>

namespace msptk::playback {

// The error a ChaosSink's write fails with once close-after has closed the peer's input: the
// run was cut on purpose (not EPIPE: the peer did not go away by itself).
inline constexpr int kCutError = ESHUTDOWN;

class ChaosSink final : public ByteSink {
 public:
  // `close_peer_input` closes the descriptor the peer reads (serve-fixture: stdout).
  ChaosSink(ByteSink& inner, const chaos::ChaosRun& run, std::string stream, chaos::Sleep sleep,
            std::function<void()> close_peer_input);
  process::IoResult write(std::string_view bytes) override;

  bool cut() const override { return cut_; }
  std::size_t frames_written() const { return frames_; }
  std::string in_force() const;

 private:
  ByteSink& inner_;
  chaos::ChaosRun run_;
  chaos::WritePlanner planner_;
  chaos::Sleep sleep_;
  std::function<void()> close_;
  std::size_t frames_ = 0;  // LFs written
  bool cut_ = false;
};

class ChaosSource final : public ByteSource {
 public:
  ChaosSource(ByteSource& inner, const chaos::ChaosRun& run, std::string peer, chaos::Sleep sleep);
  process::IoResult read(char* buffer, std::size_t capacity) override;
  process::IoResult read_within(char* buffer, std::size_t capacity, int timeout_ms) override;
  std::string in_force() const;

 private:
  void maybe_stall();

  ByteSource& inner_;
  std::optional<chaos::StallPlan> stall_;
  std::string peer_;
  chaos::Sleep sleep_;
};

}  // namespace msptk::playback
