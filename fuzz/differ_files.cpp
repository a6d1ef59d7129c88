// Fuzz target: the differ's file path (diff_transcripts: the byte fast paths, lines read in
// step and shared as twins, the common prefix kept unkeyed, the text key) against its in-memory
// path (diff_frames). Input: differ_input.hpp, as the differ target (a flags byte, transcript A,
// optionally a NUL and transcript B); each side's first 12 frames are written as canonical transcript
// lines into memory files (memfd: opened by path like any file, never on a disk).
// Invariant: for A and A' (a space in front of every JSON frame), and for A and B both ways,
// diff_transcripts of the files reports, rendered as text and as JSON, exactly what diff_frames
// reports of the frames the files read back as, whether it reads twins on as a tail run after
// one twin in a row or after its default number.
#include "differ_input.hpp"

#include "../differ/diff_parts.hpp"  // twin_run_threshold

#include "msptk/differ/render.hpp"
#include "msptk/transcript/writer.hpp"

#include <sstream>
#include <sys/mman.h>
#include <unistd.h>

namespace {

using namespace msptk;

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
  const DiffResult in_memory = diff_frames(*ra, *rb, options, fa.string(), fb.string());
  static const std::size_t threshold = diff_parts::twin_run_threshold();
  for (std::size_t after : {std::size_t{1}, threshold}) {
    diff_parts::twin_run_threshold() = after;
    auto through_files = diff_transcripts(fa, fb, options);
    diff_parts::twin_run_threshold() = threshold;
    MSPTK_FUZZ_CHECK(through_files.has_value(), "diff_transcripts failed: {}",
                     through_files ? "" : through_files.error().render());
    MSPTK_FUZZ_CHECK(rendered(*through_files) == rendered(in_memory), "run after {}; through files:\n{}\nin memory:\n{}",
                     after, rendered(*through_files), rendered(in_memory));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::optional<fuzz::DifferInput> in = fuzz::differ_input(data, size);
  if (!in) return 0;
  check_files_agree(in->a, fuzz::padded(in->a), in->options);
  if (in->b) {
    check_files_agree(in->a, *in->b, in->options);
    check_files_agree(*in->b, in->a, in->options);
  }
  return 0;
}
