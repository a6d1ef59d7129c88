// Fuzz target: msptk shrink's segmentation and reducer (shrink/segment.hpp, shrink/reduce.hpp).
// Input: 8 seed bytes, then a transcript. When the seed's top bit is set, its bits 32-43 give a
// small frame limit (64 + n bytes: serverConfig.frameLimitBytes, so oversized client frames and
// their rejections occur); otherwise the default limit. A transcript the validator accepts (no
// error) under that limit is segmented and reduced with an oracle that fails when the candidate holds a seeded set of one
// or two units.
// Invariants:
// - the units are non-empty, contiguous, disjoint, in order, after the handshake, and cover
//   every frame after it;
// - every candidate the reducer asks about validates (validate's frame and session rules, in
//   memory: validate_frames), so every id still pairs;
// - the reducer asks each candidate once, and returns a candidate the oracle said fails that
//   holds the planted units and nothing else.
#include "fuzz_support.hpp"

#include "msptk/chaos/plan.hpp"
#include "msptk/shrink/reduce.hpp"
#include "msptk/shrink/segment.hpp"
#include "msptk/validator/validator.hpp"

#include <cstring>
#include <set>

namespace {

using namespace msptk;

bool valid(const std::vector<Frame>& frames, std::int64_t frame_limit) {
  for (const Finding& f : validate_frames(frames, frame_limit))
    if (f.severity == Severity::error) return false;
  return true;
}

class Planted final : public shrink::Oracle {
 public:
  Planted(const std::vector<Frame>& frames, std::int64_t frame_limit, const shrink::Segmentation& seg,
          std::vector<std::size_t> bug)
      : frames_(frames), frame_limit_(frame_limit), seg_(seg), bug_(std::move(bug)) {}
  Result<bool> fails_same_way(const std::vector<std::size_t>& units) override {
    MSPTK_FUZZ_CHECK(asked_.insert(units).second, "a candidate of {} units asked twice", units.size());
    const std::vector<Frame> candidate = shrink::candidate_frames(frames_, seg_, units);
    MSPTK_FUZZ_CHECK(valid(candidate, frame_limit_), "a candidate of {} units ({} frames) does not validate", units.size(),
                     candidate.size());
    for (std::size_t b : bug_)
      if (!std::binary_search(units.begin(), units.end(), b)) return false;
    return true;
  }

 private:
  const std::vector<Frame>& frames_;
  std::int64_t frame_limit_;
  const shrink::Segmentation& seg_;
  std::vector<std::size_t> bug_;
  std::set<std::vector<std::size_t>> asked_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 8) return 0;
  std::uint64_t seed = 0;
  std::memcpy(&seed, data, 8);
  const std::vector<Frame> frames = fuzz::frames_of(fuzz::as_text(data + 8, size - 8), 200);
  const std::int64_t frame_limit =
      (seed >> 63) ? 64 + static_cast<std::int64_t>((seed >> 32) & 0xfff) : kDefaultFrameLimitBytes;
  if (frames.empty() || !valid(frames, frame_limit)) return 0;
  const shrink::Segmentation seg = shrink::segment(frames, frame_limit);
  std::size_t next = seg.handshake_end;
  for (const shrink::Unit& u : seg.units) {
    MSPTK_FUZZ_CHECK(u.begin == next && u.end > u.begin, "unit [{}, {}) after frame {}", u.begin, u.end, next);
    next = u.end;
  }
  MSPTK_FUZZ_CHECK(next == frames.size() || (seg.units.empty() && seg.handshake_end == frames.size()),
                   "the units end at {} of {} frames", next, frames.size());
  if (seg.units.empty()) return 0;
  chaos::Rng rng(seed);
  std::vector<std::size_t> bug = {static_cast<std::size_t>(rng.uniform(0, seg.units.size() - 1))};
  if (seg.units.size() > 1 && rng.chance(1, 2)) bug.push_back(static_cast<std::size_t>(rng.uniform(0, seg.units.size() - 1)));
  std::sort(bug.begin(), bug.end());
  bug.erase(std::unique(bug.begin(), bug.end()), bug.end());
  Planted oracle(frames, frame_limit, seg, bug);
  auto r = shrink::reduce(seg.units.size(), oracle, 10000);
  MSPTK_FUZZ_CHECK(r.has_value(), "reduce failed");
  MSPTK_FUZZ_CHECK(r->kept == bug, "reduced to {} units, the bug is in {}", r->kept.size(), bug.size());
  return 0;
}
