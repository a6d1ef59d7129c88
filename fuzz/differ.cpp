// Fuzz target: the offline differ (differ/diff.hpp). Input: a flags byte (mask, see
// fuzz_support.hpp; bits 6-7 select the side: 0 both, 1 client, 2 server), then transcript A,
// then optionally a NUL and transcript B (without one, B is A). Each side is its first
// kMaxFrames frames (small inputs: thousands of executions a second, not tens), and the file
// path's transcripts are memory files (memfd), never written to a disk.
// Invariants:
// - a transcript diffed with itself is identical, byte for byte, with no entries;
// - A diffed with A' — A with a space in front of every frame that is JSON (whitespace is free
//   in a structural comparison) — is identical or equivalent: no divergent, missing, extra or
//   moved frame;
// - for any A and B, both ways: the counts add up to the frames of each side, there is one
//   entry per frame that is not identical, and the verdict follows from the counts;
// - for any A and B written as canonical transcript files, diff_transcripts (the file path: the
//   byte fast paths, lines read in step and shared as twins, the common prefix kept unkeyed, the
//   text key) reports exactly what diff_frames (every frame in memory, parsed and keyed) reports.
#include "fuzz_support.hpp"

#include "msptk/differ/diff.hpp"
#include "msptk/differ/render.hpp"
#include "msptk/transcript/writer.hpp"

#include <sstream>
#include <sys/mman.h>
#include <unistd.h>

namespace {

using namespace msptk;

constexpr std::size_t kMaxFrames = 12;

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

// A with a space in front of each frame that parses as JSON. Lines with rawBase64 are left
// alone: their bytes are the frame, compared byte for byte (a space there is a divergence).
std::vector<Frame> padded(const std::vector<Frame>& frames) {
  std::vector<Frame> out = frames;
  for (Frame& f : out) {
    if (f.exact_bytes || !f.parse("fuzz.ndjson")) continue;
    f.raw = " " + f.raw;
  }
  return out;
}

std::string rendered(const DiffResult& result) {
  DiffReport report;
  report.comparisons.push_back(result);
  std::ostringstream text, js;
  render_text(text, report);
  render_json(js, report);
  return text.str() + "\n----\n" + js.str();
}

// A transcript in a memory file (memfd): a path diff_transcripts opens like any file. The two
// descriptors are made once and rewritten for each input.
std::filesystem::path written(int slot, const std::vector<Frame>& frames) {
  static int fds[2] = {::memfd_create("msptk-fuzz-a.ndjson", 0), ::memfd_create("msptk-fuzz-b.ndjson", 0)};
  const int fd = fds[slot];
  MSPTK_FUZZ_CHECK(fd >= 0, "memfd_create failed");
  std::string text;
  for (const Frame& f : frames) text += canonical_line(f.dir, f.wire_bytes()) + "\n";
  MSPTK_FUZZ_CHECK(::ftruncate(fd, 0) == 0, "ftruncate failed");
  MSPTK_FUZZ_CHECK(::pwrite(fd, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size()), "pwrite failed");
  return fmt::format("/proc/self/fd/{}", fd);
}

// diff_transcripts through files says what diff_frames says of the frames they hold.
void check_files_agree(const std::vector<Frame>& a, const std::vector<Frame>& b, const DiffOptions& options) {
  const std::filesystem::path fa = written(0, a), fb = written(1, b);
  auto ra = read_transcript(fa);
  auto rb = read_transcript(fb);
  MSPTK_FUZZ_CHECK(ra && rb, "a written transcript does not read back");
  auto through_files = diff_transcripts(fa, fb, options);
  MSPTK_FUZZ_CHECK(through_files.has_value(), "diff_transcripts failed: {}",
                   through_files ? "" : through_files.error().render());
  const DiffResult in_memory = diff_frames(*ra, *rb, options, fa.string(), fb.string());
  MSPTK_FUZZ_CHECK(rendered(*through_files) == rendered(in_memory), "through files:\n{}\nin memory:\n{}",
                   rendered(*through_files), rendered(in_memory));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t flags = data[0];
  const auto [a_text, b_text] = fuzz::split_at_nul(fuzz::as_text(data + 1, size - 1));
  const std::vector<Frame> a = fuzz::frames_of(a_text, kMaxFrames);
  const std::vector<Frame> b = b_text ? fuzz::frames_of(*b_text, kMaxFrames) : a;
  DiffOptions options;
  options.mask = fuzz::mask_from_flags(flags);
  const int side_bits = flags >> 6;
  options.side = side_bits == 1 ? Side::client : side_bits == 2 ? Side::server : Side::both;

  const DiffResult self = diff_frames(a, a, options);
  MSPTK_FUZZ_CHECK(self.verdict == Verdict::identical && self.entries.empty() && self.byte_identical,
                   "a transcript diffed with itself is {} with {} entries", to_string(self.verdict),
                   self.entries.size());
  check_consistent(self, a, a, options.side);

  const std::vector<Frame> a_padded = padded(a);
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

  check_files_agree(a, a_padded, options);
  if (b_text) {
    check_consistent(diff_frames(a, b, options), a, b, options.side);
    check_consistent(diff_frames(b, a, options), b, a, options.side);
    check_files_agree(a, b, options);
    check_files_agree(b, a, options);
  }
  return 0;
}
