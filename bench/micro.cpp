// msptk_bench_micro: Google Benchmark micro benchmarks of the core operations every verb is
// made of — reading a transcript line, parsing a frame, the differ's content key and frame
// comparison, UTF-8 checking, the text key of a notification against the general path over the
// frames of a generated session (MSPTK_BENCH_SESSION=FILE.ndjson, else msptk_bench_gen --mb 16
// --seed 12 is run into a temporary folder). Timing goals live in bench/compare.sh; these
// locate the cost.
// Run: build/bin/msptk_bench_micro [--benchmark_filter=REGEX]
#include "msptk/differ/comparer.hpp"
#include "msptk/differ/signature.hpp"
#include "msptk/transcript/text_key.hpp"
#include "msptk/normalizer/mask.hpp"
#include "msptk/normalizer/registry.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/writer.hpp"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>
#include <unistd.h>

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


// The JSON texts of the server notifications of a generated session (loaded once).
const std::vector<std::string>& session_notifications() {
  static const std::vector<std::string> texts = [] {
    namespace fs = std::filesystem;
    std::vector<std::string> out;
    fs::path file;
    fs::path temp;
    if (const char* given = std::getenv("MSPTK_BENCH_SESSION"); given && *given) {
      file = given;
    } else {
      temp = fs::temp_directory_path() / ("msptk-bench-micro-" + std::to_string(::getpid()));
      const std::string cmd = std::string(MSPTK_BENCH_GEN) + " --out " + temp.string() + " --mb 16 --seed 12";
      if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "msptk_bench_micro: %s failed\n", cmd.c_str());
      file = temp / "base" / "transcript.ndjson";
    }
    auto reader = TranscriptReader::open(file);
    if (!reader) {
      std::fprintf(stderr, "msptk_bench_micro: %s\n", reader.error().render().c_str());
    } else {
      while (auto item = reader->next()) {
        if (!*item || (*item)->dir != Direction::server) continue;
        const std::string_view text = (*item)->json_text();
        auto value = parse_json(text, ParseLimits{.utf8_known = true});
        if (value && classify(*value).kind == FrameKind::notification) out.emplace_back(text);
      }
    }
    if (!temp.empty()) fs::remove_all(temp);
    return out;
  }();
  return texts;
}

std::int64_t total_bytes(const std::vector<std::string>& texts) {
  std::int64_t n = 0;
  for (const std::string& t : texts) n += static_cast<std::int64_t>(t.size());
  return n;
}

// notification_text_key over every notification of the session (AVX2 or scalar string scan).
void BM_TextKeySession(benchmark::State& state, bool scalar) {
  const auto& texts = session_notifications();
  std::string scratch;
  std::int64_t accepted = 0;
  for (auto _ : state) {
    accepted = 0;
    for (const std::string& t : texts) {
      auto key = scalar ? notification_text_key_scalar(t, scratch) : notification_text_key(t, scratch);
      accepted += key.has_value();
      benchmark::DoNotOptimize(key);
    }
  }
  state.SetBytesProcessed(state.iterations() * total_bytes(texts));
  state.counters["frames"] = static_cast<double>(texts.size());
  state.counters["accepted"] = static_cast<double>(accepted);
  state.SetLabel(scalar ? "scalar" : (text_key_uses_simd() ? "avx2" : "scalar (no AVX2)"));
}
BENCHMARK_CAPTURE(BM_TextKeySession, simd, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TextKeySession, scalar, true)->Unit(benchmark::kMillisecond);

// The general path for the same frames: parse_json into an arena, classify, content_key.
void BM_GeneralKeySession(benchmark::State& state) {
  const auto& texts = session_notifications();
  const Masker masker{MaskSpec{}};
  JsonArena arena;
  for (auto _ : state) {
    for (const std::string& t : texts) {
      ArenaScope scope(arena);
      auto value = parse_json(t, scope.storage(), ParseLimits{.utf8_known = true});
      const Envelope env = classify(*value);
      benchmark::DoNotOptimize(content_key(masker, FrameRole::of(Direction::server, env), *value));
    }
  }
  state.SetBytesProcessed(state.iterations() * total_bytes(texts));
  state.counters["frames"] = static_cast<double>(texts.size());
}
BENCHMARK(BM_GeneralKeySession)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
