// Fuzz target: the differ's in-memory path (diff_frames: every frame parsed and keyed, the
// alignment, the comparison). Input: differ_input.hpp (a flags byte, transcript A, optionally a
// NUL and transcript B; without one, B is A). Each side is its first 12 frames, in memory: no
// file is opened (the file path, diff_transcripts, is the differ_files target).
// Invariants:
// - a transcript diffed with itself is identical, byte for byte, with no entries;
// - A diffed with A' — A with a space in front of every frame that is JSON (whitespace is free
//   in a structural comparison) — is identical or equivalent: no divergent, missing, extra or
//   moved frame;
// - for any A and B, both ways: the counts add up to the frames of each side, there is one
//   entry per frame that is not identical, and the verdict follows from the counts.
#include "differ_input.hpp"

namespace {

using namespace msptk;

std::size_t compared(const std::vector<Frame>& frames, Side side) {
  std::size_t n = 0;
  for (const Frame& f : frames)
    if (side == Side::both || (side == Side::client) == (f.dir == Direction::client)) ++n;
  return n;
}

void check_consistent(const DiffResult& r, const std::vector<Frame>& expected, const std::vector<Frame>& actual,
                      Side side) {
  const DiffCounts& c = r.counts;
  const std::size_t e = compared(expected, side), a = compared(actual, side);
  MSPTK_FUZZ_CHECK(c.identical + c.equivalent + c.divergent + c.missing + c.moved == e,
                   "expected-side counts {}+{}+{}+{}+{} != {} frames", c.identical, c.equivalent, c.divergent,
                   c.missing, c.moved, e);
  MSPTK_FUZZ_CHECK(c.identical + c.equivalent + c.divergent + c.extra + c.moved == a,
                   "actual-side counts {}+{}+{}+{}+{} != {} frames", c.identical, c.equivalent, c.divergent, c.extra,
                   c.moved, a);
  MSPTK_FUZZ_CHECK(r.entries.size() == c.frames() - c.identical, "{} entries for {} frames that are not identical",
                   r.entries.size(), c.frames() - c.identical);
  const bool bad = c.divergent + c.missing + c.extra + c.moved > 0;
  const Verdict expected_verdict = bad ? Verdict::divergent : c.equivalent > 0 ? Verdict::equivalent : Verdict::identical;
  MSPTK_FUZZ_CHECK(r.verdict == expected_verdict, "verdict {} for counts that say {}", to_string(r.verdict),
                   to_string(expected_verdict));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::optional<fuzz::DifferInput> in = fuzz::differ_input(data, size);
  if (!in) return 0;
  const std::vector<Frame>& a = in->a;
  const std::vector<Frame>& b = in->b ? *in->b : a;
  const DiffOptions& options = in->options;

  const DiffResult self = diff_frames(a, a, options);
  MSPTK_FUZZ_CHECK(self.verdict == Verdict::identical && self.entries.empty() && self.byte_identical,
                   "a transcript diffed with itself is {} with {} entries", to_string(self.verdict),
                   self.entries.size());
  check_consistent(self, a, a, options.side);

  const std::vector<Frame> a_padded = fuzz::padded(a);
  const DiffResult ws = diff_frames(a, a_padded, options);
  check_consistent(ws, a, a_padded, options.side);
  for (const DiffEntry& entry : ws.entries) {
    MSPTK_FUZZ_CHECK(entry.kind == EntryKind::equivalent,
                     "whitespace in front of JSON frames made expected line {} / actual line {} {}{}",
                     entry.expected_line, entry.actual_line, to_string(entry.kind),
                     entry.divergences.empty()
                         ? std::string()
                         : fmt::format(" at '{}' ({})", entry.divergences.front().path, entry.divergences.front().note));
  }

  if (in->b) {
    check_consistent(diff_frames(a, b, options), a, b, options.side);
    check_consistent(diff_frames(b, a, options), b, a, options.side);
  }
  return 0;
}
