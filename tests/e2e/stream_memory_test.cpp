// Issue 12, memory independent of length: serve-fixture and replay (and show, issue 21) stream the recorded
// transcript (one recorded frame at a time, playback/frame_feed.hpp), so their peak RSS does
// not grow with the transcript's length. Two generated sessions of the bench's generator
// (bench/gen.cpp, seed 25: its 4 MiB frame comes early, so both hold the same largest frame)
// of about 5 and 35 MB are played: the longer one's peak must stay within a few MiB of the
// shorter one's, and both under the target, 32 MiB + 2 x the largest frame. Sanitizer
// builds have their own overhead: only the plain build asserts the bounds (as fault_test.cpp).
#include "fault_support.hpp"

#include "msptk/transcript/reader.hpp"

#include <fstream>
#include <iostream>

namespace msptk::e2e {
namespace {

namespace fs = std::filesystem;

constexpr bool kAssertRss = !kSanitized;
constexpr long kGrowthKib = 4 * 1024;  // what the 7x longer session may add to the peak

struct Generated {
  fs::path base;          // the scenario folder
  fs::path client_wire;   // its client lines, raw + LF: what a client playing it writes
  std::size_t bytes = 0;  // of its transcript
  std::size_t largest = 0;  // its largest line
};

class StreamMemoryE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new test::TempDir;
    short_ = generate("short", 2);
    long_ = generate("long", 32);
  }
  static void TearDownTestSuite() {
    delete tmp_;
    tmp_ = nullptr;
  }

  static Generated generate(const std::string& name, int mb) {
    Generated g;
    const fs::path out = *tmp_ / name;
    CommandRun gen = run_command({MSPTK_BENCH_GEN, "--out", out.string(), "--mb", std::to_string(mb), "--seed", "25"},
                                 std::chrono::seconds(60));
    EXPECT_EQ(gen.exit.code, 0) << gen.err;
    g.base = out / "base";
    g.client_wire = out / "client.wire";
    auto reader = TranscriptReader::open(g.base / "transcript.ndjson");
    EXPECT_TRUE(reader);
    if (!reader) return g;
    std::ofstream wire(g.client_wire, std::ios::binary);
    while (auto item = reader->next()) {
      EXPECT_TRUE(*item);
      if (!*item) break;
      g.bytes += reader->size() + 1;
      g.largest = std::max(g.largest, reader->size());
      if ((*item)->dir == Direction::client) wire << (*item)->wire_bytes() << '\n';
    }
    return g;
  }

  // Both peaks under the target; the long session's within kGrowthKib of the short one's.
  static void expect_flat(const Measured& shorter, const Measured& longer) {
    std::cout << "[ peak RSS ] " << short_.bytes / 1000000 << " MB: " << shorter.max_rss_kib << " KiB; "
              << long_.bytes / 1000000 << " MB: " << longer.max_rss_kib << " KiB\n";
    EXPECT_GT(long_.bytes, 6 * short_.bytes);
    EXPECT_EQ(long_.largest, short_.largest) << "both sessions must hold the same largest frame";
    if (!kAssertRss) return;
    const long target_kib = 32 * 1024 + 2 * static_cast<long>(long_.largest / 1024);
    EXPECT_LT(shorter.max_rss_kib, target_kib);
    EXPECT_LT(longer.max_rss_kib, target_kib);
    EXPECT_LT(longer.max_rss_kib, shorter.max_rss_kib + kGrowthKib) << "peak RSS grew with the transcript's length";
  }

  static test::TempDir* tmp_;
  static Generated short_, long_;
};

test::TempDir* StreamMemoryE2E::tmp_ = nullptr;
Generated StreamMemoryE2E::short_, StreamMemoryE2E::long_;

TEST_F(StreamMemoryE2E, ServeFixturePeakRssDoesNotGrowWithTheTranscript) {
  test::TempDir scratch;
  auto play = [&](const Generated& g) {
    Measured m = run_measured({msptk_bin(), "serve-fixture", "--transcript", g.base.string()}, scratch.path(),
                              g.client_wire, true, std::chrono::seconds(60));
    EXPECT_EQ(m.exit.code, 0) << m.err;
    EXPECT_NE(m.err.find("\"kind\":\"serveFixtureComplete\""), std::string::npos) << m.err;
    return m;
  };
  const Measured shorter = play(short_);
  const Measured longer = play(long_);
  expect_flat(shorter, longer);
}

TEST_F(StreamMemoryE2E, ReplayPeakRssDoesNotGrowWithTheTranscript) {
  test::TempDir scratch;
  // replay against serve-fixture of the same scenario, as the bench does: the peak measured is
  // the larger of the two processes (msptk waits for its host).
  auto play = [&](const Generated& g) {
    Measured m = run_measured({msptk_bin(), "replay", "--transcript", g.base.string(), "--", msptk_bin(),
                               "serve-fixture", "--transcript", g.base.string()},
                              scratch.path(), {}, false, std::chrono::seconds(60));
    EXPECT_EQ(m.exit.code, 0) << m.out << m.err;
    EXPECT_NE(m.out.find("replay passed"), std::string::npos) << m.out;
    return m;
  };
  const Measured shorter = play(short_);
  const Measured longer = play(long_);
  expect_flat(shorter, longer);
}

// Issue 21: `msptk show` streams the rows of text and JSON (two passes, one frame held), so its
// peak RSS does not grow with the transcript either.
TEST_F(StreamMemoryE2E, ShowPeakRssDoesNotGrowWithTheTranscript) {
  test::TempDir scratch;
  for (const char* format : {"text", "json"}) {
    auto show = [&](const Generated& g) {
      Measured m = run_measured({msptk_bin(), "show", g.base.string(), "--format", format}, scratch.path(), {}, true,
                                std::chrono::seconds(60));
      EXPECT_EQ(m.exit.code, 0) << m.err;
      return m;
    };
    const Measured shorter = show(short_);
    const Measured longer = show(long_);
    SCOPED_TRACE(format);
    expect_flat(shorter, longer);
  }
}

}  // namespace
}  // namespace msptk::e2e
