// ChaosSink and ChaosSource (chaos_stream.hpp).
#include "msptk/playback/chaos_stream.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace msptk::playback {

ChaosSink::ChaosSink(ByteSink& inner, const chaos::ChaosRun& run, std::string stream, chaos::Sleep sleep,
                     std::function<void()> close_peer_input)
    : inner_(inner),
      run_(run),
      planner_(run.spec, run.seed, std::move(stream)),
      sleep_(std::move(sleep)),
      close_(std::move(close_peer_input)) {}

process::IoResult ChaosSink::write(std::string_view bytes) {
  if (cut_) return {0, false, kCutError};
  std::size_t keep = bytes.size();
  if (run_.spec.close_after) {
    std::size_t counted = frames_;
    const std::size_t at = chaos::cut_offset(bytes, counted, *run_.spec.close_after);
    if (at != std::string_view::npos) keep = at;
  }
  const std::string_view kept = bytes.substr(0, keep);
  std::size_t written = 0;
  for (const chaos::Write& w : planner_.plan(kept)) {
    if (w.pause_us) sleep_(std::chrono::microseconds(w.pause_us));
    process::IoResult r = inner_.write(kept.substr(w.offset, w.size));
    written += r.bytes;
    if (r.error) {
      frames_ += static_cast<std::size_t>(std::count(kept.begin(), kept.begin() + written, '\n'));
      return {written, false, r.error};
    }
  }
  frames_ += static_cast<std::size_t>(std::count(kept.begin(), kept.end(), '\n'));
  if (keep < bytes.size() || (run_.spec.close_after && frames_ >= *run_.spec.close_after)) {
    cut_ = true;
    if (close_) close_();
    if (keep < bytes.size()) return {written, false, kCutError};
  }
  return {written, false, 0};
}

std::string ChaosSink::in_force() const {
  std::string text = planner_.describe_last();
  if (cut_) text += fmt::format("; the peer's input closed after {} frames (close-after)", frames_);
  return text;
}

ChaosSource::ChaosSource(ByteSource& inner, const chaos::ChaosRun& run, std::string peer, chaos::Sleep sleep)
    : inner_(inner), peer_(std::move(peer)), sleep_(std::move(sleep)) {
  if (run.spec.stall_ms) stall_.emplace(*run.spec.stall_ms, run.seed);
}

void ChaosSource::maybe_stall() {
  if (stall_ && stall_->due()) sleep_(std::chrono::milliseconds(stall_->ms()));
}

process::IoResult ChaosSource::read(char* buffer, std::size_t capacity) {
  maybe_stall();
  return inner_.read(buffer, capacity);
}

process::IoResult ChaosSource::read_within(char* buffer, std::size_t capacity, int timeout_ms) {
  maybe_stall();
  return inner_.read_within(buffer, capacity, timeout_ms);
}

std::string ChaosSource::in_force() const { return stall_ ? stall_->describe(peer_) : std::string(); }

}  // namespace msptk::playback
