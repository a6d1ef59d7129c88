// Fuzz target: chaos framing (chaos/plan.hpp, playback/chaos_stream.hpp). Input: 8 seed bytes,
// a flags byte (bit 0 split, bit 1 merge, bit 2 delay=5, bits 3-7: how many write calls the
// stream is given in, cut at seeded places), then a byte stream (frames, each ending in LF,
// and whatever else).
// Invariants:
// - each call's planned writes are contiguous, non-empty slices covering its bytes exactly,
//   with pauses of at most 5 ms (delay) or kSplitPauseUs (between split pieces);
// - any split/merge of the stream rebuilds the same frames: a LineFramer fed the writes yields
//   the frames (and the pending tail) it yields fed the stream in one piece;
// - a ChaosSink with close-after=N delivers exactly the stream through its N-th LF, then fails
//   every write with kCutError.
#include "fuzz_support.hpp"

#include "msptk/chaos/plan.hpp"
#include "msptk/playback/chaos_stream.hpp"
#include "msptk/transcript/framing.hpp"

#include <cstring>

namespace {

using namespace msptk;

struct Framed {
  std::vector<std::string> frames;
  std::string tail;
  bool operator==(const Framed&) const = default;
};

Framed frame_all(const std::vector<std::string_view>& chunks) {
  Framed out;
  LineFramer framer;
  for (std::string_view c : chunks) framer.feed(c, [&](const FramedLine& l) { out.frames.emplace_back(l.bytes); });
  out.tail = framer.pending();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 9) return 0;
  std::uint64_t seed = 0;
  std::memcpy(&seed, data, 8);
  const std::uint8_t flags = data[8];
  const std::string_view stream = fuzz::as_text(data + 9, size - 9);
  chaos::ChaosSpec spec;
  spec.split = flags & 1;
  spec.merge = flags & 2;
  if (flags & 4) spec.delay_ms = 5;
  const std::size_t calls = 1 + (flags >> 3);

  // The stream cut into `calls` calls at seeded places (the session's own writes).
  chaos::Rng rng(seed ^ 0xCA11);
  std::vector<std::size_t> cuts = {0, stream.size()};
  for (std::size_t i = 1; i < calls && !stream.empty(); ++i) cuts.push_back(rng.uniform(0, stream.size()));
  std::sort(cuts.begin(), cuts.end());

  chaos::WritePlanner planner(spec, seed, "frame");
  std::vector<std::string_view> writes;
  for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
    const std::string_view call = stream.substr(cuts[c], cuts[c + 1] - cuts[c]);
    std::size_t next = 0;
    for (const chaos::Write& w : planner.plan(call)) {
      MSPTK_FUZZ_CHECK(w.offset == next && w.size > 0, "write at {} of {} bytes, expected at {}", w.offset, w.size, next);
      MSPTK_FUZZ_CHECK(w.pause_us <= 5000, "a pause of {} us", w.pause_us);
      writes.push_back(call.substr(w.offset, w.size));
      next += w.size;
    }
    MSPTK_FUZZ_CHECK(next == call.size(), "writes cover {} of {} bytes", next, call.size());
  }
  std::string joined;
  for (std::string_view w : writes) joined += w;
  MSPTK_FUZZ_CHECK(joined == stream, "the writes do not spell the stream");
  MSPTK_FUZZ_CHECK(frame_all(writes) == frame_all({stream}), "the writes rebuild other frames than the stream");

  // close-after=N through a ChaosSink.
  const std::size_t lfs = static_cast<std::size_t>(std::count(stream.begin(), stream.end(), '\n'));
  if (lfs == 0) return 0;
  const std::size_t n = 1 + static_cast<std::size_t>(seed % lfs);
  chaos::ChaosRun run{spec, seed};
  run.spec.close_after = n;
  playback::MemorySink inner;
  int closed = 0;
  playback::ChaosSink sink(inner, run, "frame", [](std::chrono::microseconds) {}, [&] { ++closed; });
  bool cut = false;
  for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
    process::IoResult r = sink.write(stream.substr(cuts[c], cuts[c + 1] - cuts[c]));
    if (cut) MSPTK_FUZZ_CHECK(r.error == playback::kCutError && r.bytes == 0, "a write after the cut went through");
    if (r.error) {
      MSPTK_FUZZ_CHECK(r.error == playback::kCutError, "error {}", r.error);
      cut = true;
    }
  }
  std::size_t end = 0;
  for (std::size_t k = 0; k < n; ++k) end = stream.find('\n', end) + 1;
  MSPTK_FUZZ_CHECK(inner.bytes() == stream.substr(0, end), "close-after={} delivered {} bytes, not the {} through LF {}",
                   n, inner.bytes().size(), end, n);
  MSPTK_FUZZ_CHECK(closed == 1 && sink.cut(), "the peer's input was closed {} times", closed);
  return 0;
}
