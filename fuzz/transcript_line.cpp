// Fuzz target: the transcript line reader. The input is a transcript file's bytes.
// Invariants:
// - TranscriptReader yields one item per line (as lines_of counts them), and each item is what
//   parse_transcript_line says about that line (a trailing CR dropped);
// - a line read as a frame, written back by canonical_line, is one line of valid UTF-8 that
//   reads back as the same frame (direction and wire bytes), and canonical_line is a fixed point;
// - the reader's `canonical` fact holds exactly when the line is that canonical text;
// - the body scan (AVX2 where the CPU has it) finds the same closing quote and decodes the same
//   bytes as the scalar scan, from the raw body's start and from every line's first 40 bytes.
#include "fuzz_support.hpp"

#include "msptk/transcript/body_scan.hpp"
#include "msptk/transcript/writer.hpp"

#include <algorithm>
#include <fstream>
#include <unistd.h>

namespace {

using namespace msptk;
using msptk::fuzz::as_text;

// One scratch file per process, rewritten for every input (the reader streams from a file).
const std::string& scratch_file() {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    return fmt::format("{}/msptk-fuzz-transcript-line-{}.ndjson", dir && *dir ? dir : "/tmp", ::getpid());
  }();
  return path;
}

void check_round_trip(const Frame& frame) {
  const std::string line = canonical_line(frame.dir, frame.wire_bytes());
  MSPTK_FUZZ_CHECK(line.find('\n') == std::string::npos, "canonical line holds a LF: {}", line);
  MSPTK_FUZZ_CHECK(is_valid_utf8(line), "canonical line is not UTF-8");
  Result<Frame> back = parse_transcript_line(line, "canonical.ndjson", 1);
  MSPTK_FUZZ_CHECK(back.has_value(), "canonical line does not read back: {} ({})", line,
                   back ? "" : back.error().render());
  MSPTK_FUZZ_CHECK(back->dir == frame.dir, "direction changed through canonical_line");
  MSPTK_FUZZ_CHECK(back->wire_bytes() == frame.wire_bytes(), "wire bytes changed through canonical_line: {}", line);
  MSPTK_FUZZ_CHECK(canonical_line(back->dir, back->wire_bytes()) == line, "canonical_line is not a fixed point");
}

void check_body_scan(std::string_view line) {
  const std::size_t from = line.size() >= kCanonicalHeadSize ? kCanonicalHeadSize : 0;
  for (std::size_t at : {from, line.size() / 3, std::min<std::size_t>(line.size(), 40)}) {
    std::string fast(line.size() - at, '\0'), plain(line.size() - at, '\0');
    std::size_t nf = 0, np = 0;
    const std::size_t cf = scan_canonical_body(line, at, fast.data(), &nf);
    const std::size_t cp = scan_canonical_body_scalar(line, at, plain.data(), &np);
    MSPTK_FUZZ_CHECK(cf == cp, "body scans disagree from {}: {} vs {}", at, cf, cp);
    MSPTK_FUZZ_CHECK(cf == scan_canonical_body(line, at, nullptr, nullptr), "decoding and checking disagree from {}", at);
    if (cf != std::string_view::npos) {
      MSPTK_FUZZ_CHECK(nf == np && fast.compare(0, nf, plain, 0, np) == 0, "body scans decode differently from {}", at);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  {
    std::ofstream out(scratch_file(), std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    MSPTK_FUZZ_CHECK(out.good(), "cannot write {}", scratch_file());
  }
  const std::vector<std::string_view> lines = fuzz::lines_of(text);
  Result<TranscriptReader> reader = TranscriptReader::open(scratch_file());
  MSPTK_FUZZ_CHECK(reader.has_value(), "cannot open {}", scratch_file());
  std::size_t n = 0;
  while (auto item = reader->next()) {
    MSPTK_FUZZ_CHECK(n < lines.size(), "the reader yields more items than the {} lines", lines.size());
    std::string_view line = lines[n++];
    check_body_scan(line);
    MSPTK_FUZZ_CHECK(reader->line() == n, "reader line {} for item {}", reader->line(), n);
    const bool crlf = !line.empty() && line.back() == '\r';
    if (crlf) line.remove_suffix(1);
    MSPTK_FUZZ_CHECK(reader->facts().crlf == crlf, "crlf fact wrong on line {}", n);
    MSPTK_FUZZ_CHECK(reader->facts().lf_terminated == (n < lines.size() || (!text.empty() && text.back() == '\n')),
                     "lf_terminated fact wrong on line {}", n);
    Result<Frame> direct = parse_transcript_line(line, reader->file(), n);
    MSPTK_FUZZ_CHECK(item->has_value() == direct.has_value(), "reader and parse_transcript_line disagree on line {}", n);
    if (!direct) {
      MSPTK_FUZZ_CHECK(item->error().line == n && !item->error().rule.empty(), "error without line or rule: {}",
                       item->error().render());
      continue;
    }
    const Frame& frame = **item;
    MSPTK_FUZZ_CHECK(frame.dir == direct->dir && frame.wire_bytes() == direct->wire_bytes(),
                     "reader and parse_transcript_line read different frames on line {}", n);
    check_round_trip(frame);
    if (!crlf) {
      const bool canonical = line == canonical_line(frame.dir, frame.wire_bytes());
      MSPTK_FUZZ_CHECK(reader->facts().canonical == canonical, "canonical fact wrong on line {}", n);
    }
  }
  MSPTK_FUZZ_CHECK(n == lines.size(), "the reader yields {} items for {} lines", n, lines.size());
  return 0;
}
