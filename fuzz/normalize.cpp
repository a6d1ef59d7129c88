// Fuzz target: `msptk normalize` (normalizer/placeholders.hpp). Input: a flags byte (mask, see
// fuzz_support.hpp; bit 6: --sort-members), then a transcript, of which the first kMaxFrames
// frames are normalized (small inputs: thousands of executions a second).
// Invariants:
// - every output line (canonical_line of the rewritten frame, as the verb writes it) reads
//   back as a frame of the same direction;
// - a frame that is JSON stays strict JSON (no Infinity, no NaN); a rawBase64 frame's bytes are
//   kept as they are, whatever its lossy `raw` says;
// - the output diffed with the input under the same mask is identical or equivalent: the
//   placeholders only replace masked values, consistently.
#include "fuzz_support.hpp"

#include "msptk/differ/diff.hpp"
#include "msptk/normalizer/placeholders.hpp"
#include "msptk/transcript/writer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace msptk;
  if (size == 0) return 0;
  const std::uint8_t flags = data[0];
  constexpr std::size_t kMaxFrames = 12;
  const std::vector<Frame> input = fuzz::frames_of(fuzz::as_text(data + 1, size - 1), kMaxFrames);
  const MaskSpec spec = fuzz::mask_from_flags(flags);
  const bool sort_members = flags & 0x40;

  Placeholders placeholders{Masker(spec), sort_members};
  std::vector<Frame> output;
  for (const Frame& frame : input) {
    const std::string line = canonical_line(frame.dir, placeholders.rewrite(frame));
    Result<Frame> back = parse_transcript_line(line, "normalized.ndjson", frame.line);
    MSPTK_FUZZ_CHECK(back.has_value(), "normalized line {} does not read back: {} ({})", frame.line, line,
                     back ? "" : back.error().render());
    MSPTK_FUZZ_CHECK(back->dir == frame.dir, "normalize changed the direction of line {}", frame.line);
    if (frame.parse("fuzz.ndjson")) {  // the frame's bytes (a rawBase64 line's, not its lossy raw)
      Result<boost::json::value> json = back->parse("normalized.ndjson");
      MSPTK_FUZZ_CHECK(json.has_value(), "line {} is JSON, its normalized form is not: {}", frame.line, back->raw);
    }
    output.push_back(std::move(*back));
  }

  DiffOptions options;
  options.mask = spec;
  const DiffResult r = diff_frames(input, output, options);
  for (const DiffEntry& entry : r.entries) {
    MSPTK_FUZZ_CHECK(entry.kind == EntryKind::equivalent, "normalized line {} is {} from the input{}",
                     entry.expected_line, to_string(entry.kind),
                     entry.divergences.empty()
                         ? std::string()
                         : fmt::format(" at '{}': {} vs {} ({})", entry.divergences.front().path,
                                       entry.divergences.front().expected.value_or("absent"),
                                       entry.divergences.front().actual.value_or("absent"),
                                       entry.divergences.front().note));
  }
  MSPTK_FUZZ_CHECK(r.verdict != Verdict::divergent, "the normalized transcript diverges from the input");
  return 0;
}
