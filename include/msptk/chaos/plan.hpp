// The chaos plan is the seeded decision of how each write and read of a live verb is
// perturbed, kept as data so it can be tested in memory: a WritePlanner turns the bytes msptk
// is about to write (whole frames, each ending in LF) into a list of writes, each a contiguous
// slice of those bytes with a pause before it, so the bytes on the wire are exactly the bytes
// given, only cut and timed differently; a StallPlan picks the read before which msptk stops
// reading its peer's output. Both draw from one SplitMix64 sequence seeded by --chaos-seed, so
// the same seed and the same bytes give the same plan on every machine. The planner remembers
// what it did to the last frame (describe_last), which is what a failure report names as the
// perturbation in force.
#pragma once

#include "msptk/chaos/spec.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::chaos {

// SplitMix64: small, fast, and the same sequence everywhere (std:: distributions are not).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  // Uniform in [lo, hi] (hi >= lo).
  std::uint64_t uniform(std::uint64_t lo, std::uint64_t hi);
  // True with probability num/den.
  bool chance(std::uint64_t num, std::uint64_t den) { return uniform(1, den) <= num; }

 private:
  std::uint64_t state_;
};

// One write of a plan: bytes [offset, offset + size) of the planned bytes, after a pause.
struct Write {
  std::size_t offset = 0;
  std::size_t size = 0;
  std::uint32_t pause_us = 0;

  bool operator==(const Write&) const = default;
};

// What the planner did to one frame.
struct FrameNote {
  std::size_t frame = 0;          // 1-based, counting the frames this planner has seen
  std::size_t pieces = 1;         // writes the frame was cut into (split)
  bool cut_in_code_point = false; // a cut inside a UTF-8 code point
  bool cut_before_lf = false;     // a cut right before its LF
  bool merged = false;            // written in one write with the frame before it (merge)
  std::uint32_t delay_us = 0;     // pause before it (delay)
  bool cr = false;                // sent with CR LF (the caller adds the CR; noted here)
};

// Pauses between the pieces of a split frame are at most this long.
inline constexpr std::uint32_t kSplitPauseUs = 300;
// merge writes up to this many consecutive frames in one write.
inline constexpr std::uint64_t kMaxMergedFrames = 4;

class WritePlanner {
 public:
  // `stream`: what the frames are, for descriptions ("server frame", "client frame").
  WritePlanner(const ChaosSpec& spec, std::uint64_t seed, std::string stream);

  // The writes of `bytes`: contiguous slices covering all of it in order. `bytes` holds whole
  // frames each ending in LF; the last may lack its LF (a large frame written before its LF),
  // continued by the next call. Frames are merged only within one call (msptk never holds
  // back a frame its peer may be waiting for).
  std::vector<Write> plan(std::string_view bytes);

  // The frame planned last, as a report names it: "server frame 7 written in 3 writes (one cut
  // inside a UTF-8 code point, one right before its LF), in one write with the frame before it".
  std::string describe_last() const;
  const FrameNote& last() const { return last_; }
  std::size_t frames() const { return frames_; }
  void note_cr() { last_.cr = true; }

 private:
  std::vector<std::size_t> cuts(std::string_view frame, FrameNote& note);

  ChaosSpec spec_;
  Rng rng_;
  std::string stream_;
  std::size_t frames_ = 0;      // frames completed (LFs planned)
  bool partial_ = false;        // the last call ended inside a frame
  FrameNote last_;
  bool planned_any_ = false;
};

// Chooses the read before which msptk stops reading its peer's output (stall=MS): one of the
// first kStallReads reads, so that short sessions are stalled too.
inline constexpr std::uint64_t kStallReads = 4;

class StallPlan {
 public:
  StallPlan(unsigned stall_ms, std::uint64_t seed);
  // Called before each read: true (once) when this read is to be stalled.
  bool due();
  unsigned ms() const { return ms_; }
  bool done() const { return done_; }
  std::size_t at() const { return at_; }
  // "reading the peer's output stalled 50 ms before read 2" (or "" before it happened).
  std::string describe(std::string_view peer) const;

 private:
  unsigned ms_;
  std::size_t at_;
  std::size_t reads_ = 0;
  bool done_ = false;
};

// How a perturbation waits: the real one sleeps; tests record the pauses instead.
using Sleep = std::function<void(std::chrono::microseconds)>;
Sleep real_sleep();

// Where the N-th LF of a stream ends: after counting the LFs of earlier writes (`frames`), the
// offset just after the LF that completes frame `close_after` within `bytes`, or npos when
// `bytes` does not reach it. `frames` is advanced by the LFs before that offset.
std::size_t cut_offset(std::string_view bytes, std::size_t& frames, std::size_t close_after);

}  // namespace msptk::chaos
