// The seeded chaos plan (plan.hpp).
#include "msptk/chaos/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

namespace msptk::chaos {

std::uint64_t Rng::next() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t Rng::uniform(std::uint64_t lo, std::uint64_t hi) {
  const std::uint64_t span = hi - lo + 1;
  if (span == 0) return next();  // the whole range
  return lo + next() % span;
}

WritePlanner::WritePlanner(const ChaosSpec& spec, std::uint64_t seed, std::string stream)
    : spec_(spec), rng_(seed), stream_(std::move(stream)) {}

std::vector<std::size_t> WritePlanner::cuts(std::string_view frame, FrameNote& note) {
  std::vector<std::size_t> out;
  const std::size_t len = frame.size();
  if (len < 2) return out;
  const std::uint64_t random_cuts = rng_.uniform(1, 3);
  for (std::uint64_t i = 0; i < random_cuts; ++i) out.push_back(rng_.uniform(1, len - 1));
  if (frame.back() == '\n' && rng_.chance(2, 3)) {
    out.push_back(len - 1);
    note.cut_before_lf = true;
  }
  if (rng_.chance(2, 3)) {
    // A continuation byte chosen uniformly among the frame's (reservoir sampling): a cut before
    // it falls inside a code point.
    std::size_t chosen = 0, seen = 0;
    for (std::size_t i = 1; i < len; ++i) {
      if ((static_cast<unsigned char>(frame[i]) & 0xC0) != 0x80) continue;
      if (rng_.uniform(0, seen++) == 0) chosen = i;
    }
    if (seen > 0) {
      out.push_back(chosen);
      note.cut_in_code_point = true;
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<Write> WritePlanner::plan(std::string_view bytes) {
  std::vector<Write> out;
  if (bytes.empty()) return out;
  if (!spec_.split && !spec_.merge && !spec_.delay_ms) {
    out.push_back(Write{0, bytes.size(), 0});
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      if (bytes[i] != '\n') continue;
      ++frames_;
      last_ = FrameNote{frames_};
      planned_any_ = true;
    }
    partial_ = bytes.back() != '\n';
    return out;
  }
  std::size_t pos = 0;
  std::uint64_t group_left = 0;  // frames still to join the current merged write
  while (pos < bytes.size()) {
    const std::size_t lf = bytes.find('\n', pos);
    const std::size_t end = lf == std::string_view::npos ? bytes.size() : lf + 1;
    FrameNote note;
    note.frame = frames_ + 1;
    const bool continued = partial_ && pos == 0;  // the rest of a frame begun by the last call
    if (continued) {
      note = last_;
      note.merged = false;
    }
    const std::vector<std::size_t> at = spec_.split ? cuts(bytes.substr(pos, end - pos), note) : std::vector<std::size_t>{};
    const bool join = spec_.merge && group_left > 0 && !out.empty();
    std::uint32_t pause = 0;
    if (spec_.delay_ms && !continued) pause = static_cast<std::uint32_t>(rng_.uniform(0, *spec_.delay_ms * 1000ull));
    if (!continued) note.delay_us = join ? 0 : pause;
    note.merged = join;
    std::size_t piece_begin = pos;
    for (std::size_t k = 0; k <= at.size(); ++k) {
      const std::size_t piece_end = k < at.size() ? pos + at[k] : end;
      const std::size_t size = piece_end - piece_begin;
      if (k == 0 && join) {
        out.back().size += size;
      } else {
        const std::uint32_t p =
            k == 0 ? pause : static_cast<std::uint32_t>(rng_.uniform(0, kSplitPauseUs));
        out.push_back(Write{piece_begin, size, p});
      }
      piece_begin = piece_end;
    }
    note.pieces = continued ? note.pieces + at.size() : at.size() + 1;
    if (spec_.merge) {
      if (join) --group_left;
      else group_left = rng_.uniform(1, kMaxMergedFrames - 1);
    }
    if (lf != std::string_view::npos) ++frames_;
    last_ = note;
    planned_any_ = true;
    pos = end;
  }
  partial_ = bytes.back() != '\n';
  return out;
}

std::string WritePlanner::describe_last() const {
  if (!planned_any_) return fmt::format("no {} written yet", stream_);
  std::string text = fmt::format("{} {}", stream_, last_.frame);
  if (spec_.split) {
    std::vector<std::string> how;
    if (last_.cut_in_code_point) how.emplace_back("one cut inside a UTF-8 code point");
    if (last_.cut_before_lf) how.emplace_back("one right before its LF");
    text += fmt::format(" written in {} write{}", last_.pieces, last_.pieces == 1 ? "" : "s");
    if (!how.empty()) text += fmt::format(" ({})", how.size() == 1 ? how[0] : how[0] + ", " + how[1]);
  }
  if (last_.merged) text += ", in one write with the frame before it";
  else if (spec_.merge) text += ", starting a write of merged frames";
  if (spec_.delay_ms) text += fmt::format(", after a pause of {:.1f} ms", last_.delay_us / 1000.0);
  if (last_.cr) text += ", ended with CR LF";
  return text;
}

StallPlan::StallPlan(unsigned stall_ms, std::uint64_t seed) : ms_(stall_ms) {
  // Its own sequence (the seed mixed), so that the stall does not move when a write plan does.
  Rng rng(seed ^ 0x5354414C4C000000ull);
  at_ = static_cast<std::size_t>(rng.uniform(1, kStallReads));
}

bool StallPlan::due() {
  if (done_) return false;
  if (++reads_ != at_) return false;
  done_ = true;
  return true;
}

std::string StallPlan::describe(std::string_view peer) const {
  if (!done_) return {};
  return fmt::format("reading {}'s output stalled {} ms before read {}", peer, ms_, at_);
}

Sleep real_sleep() {
  return [](std::chrono::microseconds d) {
    if (d.count() > 0) std::this_thread::sleep_for(d);
  };
}

std::size_t cut_offset(std::string_view bytes, std::size_t& frames, std::size_t close_after) {
  std::size_t pos = 0;
  while (frames < close_after) {
    const std::size_t lf = bytes.find('\n', pos);
    if (lf == std::string_view::npos) return std::string_view::npos;
    ++frames;
    pos = lf + 1;
  }
  return pos;
}

}  // namespace msptk::chaos
