// msptk_bench_micro: Google Benchmark micro benchmarks of the core operations every verb is
// made of — reading a transcript line, parsing a frame, the differ's content key and frame
// comparison, UTF-8 checking. Timing goals live in bench/compare.sh; these locate the cost.
// Run: build/bin/msptk_bench_micro [--benchmark_filter=REGEX]
#include "msptk/differ/comparer.hpp"
#include "msptk/differ/signature.hpp"
#include "msptk/normalizer/mask.hpp"
#include "msptk/normalizer/registry.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/writer.hpp"

#include <benchmark/benchmark.h>

#include <string>

using namespace msptk;

namespace {

const std::string kDelta =
    R"({"jsonrpc":"2.0","method":"item/delta","params":{"sessionId":"018f7294-0000-7000-8000-5f0e06800000",)"
    R"("turnId":"0a1b2c3d-0000-7000-8000-000000000001","itemId":"0a1b2c3d-0000-7000-8000-000000000002",)"
    R"("delta":"the \"quoted\" stream caf\u00e9 → line\nbreak"}})";

std::string completed(std::size_t text) {
  std::string s = R"({"jsonrpc":"2.0","method":"item/completed","params":{"sessionId":"s","turnId":"t","item":{"itemId":"i","kind":"agentMessage","text":")";
  while (s.size() < text) s += "lorem ipsum \\\"dolor\\\" sit amet ";
  s += R"("}}})";
  return s;
}

Frame frame(Direction dir, std::string raw) {
  Frame f;
  f.dir = dir;
  f.raw = std::move(raw);
  f.line = 1;
  return f;
}

MaskSpec default_spec() { return *make_mask_spec(Registry::builtin(), {}, "", 0, {}, MaskMode::unify); }

void BM_ParseTranscriptLine(benchmark::State& state, std::string raw) {
  const std::string line = canonical_line(Direction::server, raw);
  const std::string file = "bench";
  for (auto _ : state) benchmark::DoNotOptimize(parse_transcript_line(line, file, 1));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * line.size()));
}
BENCHMARK_CAPTURE(BM_ParseTranscriptLine, delta, kDelta);
BENCHMARK_CAPTURE(BM_ParseTranscriptLine, completed_8k, completed(8192));
BENCHMARK_CAPTURE(BM_ParseTranscriptLine, completed_2m, completed(2 << 20));

void BM_CanonicalLine(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(canonical_line(Direction::server, kDelta));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kDelta.size()));
}
BENCHMARK(BM_CanonicalLine);

void BM_ParseFrame(benchmark::State& state, std::string raw) {
  const Frame f = frame(Direction::server, raw);
  const std::string file = "bench";
  for (auto _ : state) benchmark::DoNotOptimize(f.parse(file));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * raw.size()));
}
BENCHMARK_CAPTURE(BM_ParseFrame, delta, kDelta);
BENCHMARK_CAPTURE(BM_ParseFrame, completed_8k, completed(8192));

void BM_ContentKey(benchmark::State& state) {
  const Masker masker(default_spec());
  const Frame f = frame(Direction::server, kDelta);
  const auto value = *f.parse("bench");
  const FrameRole role = FrameRole::of(f.dir, classify(value));
  for (auto _ : state) benchmark::DoNotOptimize(content_key(masker, role, value));
}
BENCHMARK(BM_ContentKey);

void BM_CompareIdenticalBytes(benchmark::State& state) {
  FrameComparer comparer(default_spec());
  const Frame e = frame(Direction::server, kDelta), a = frame(Direction::server, kDelta);
  for (auto _ : state) benchmark::DoNotOptimize(comparer.compare(e, a));
}
BENCHMARK(BM_CompareIdenticalBytes);

void BM_CompareReordered(benchmark::State& state) {
  FrameComparer comparer(default_spec());
  const Frame e = frame(Direction::server, kDelta);
  const Frame a = frame(Direction::server,
                        R"({"params":{"delta":"the \"quoted\" stream caf\u00e9 → line\nbreak","itemId":"0a1b2c3d-0000-7000-8000-000000000002",)"
                        R"("turnId":"0a1b2c3d-0000-7000-8000-000000000001","sessionId":"018f7294-0000-7000-8000-5f0e06800000"},)"
                        R"("method":"item/delta","jsonrpc":"2.0"})");
  for (auto _ : state) benchmark::DoNotOptimize(comparer.compare(e, a));
}
BENCHMARK(BM_CompareReordered);

void BM_IsValidUtf8(benchmark::State& state) {
  const std::string text = completed(1 << 16);
  for (auto _ : state) benchmark::DoNotOptimize(is_valid_utf8(text));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_IsValidUtf8);

}  // namespace

BENCHMARK_MAIN();
