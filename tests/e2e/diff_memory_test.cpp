// Issue 12, diff's memory independent of how much two sessions differ: two unrelated generated
// sessions (bench/gen.cpp, seed 12: base vs unrelated, nearly every frame missing, extra or
// divergent) of about 8 and 48 MB are diffed through the CLI, text and JSON. The differ keeps
// per frame its keys and where it is, and the report's entries are rendered into a temporary
// file as they are found (differ/render.hpp, SpooledReport), so the 6x longer pair's peak RSS
// must stay within a few MiB of the shorter one's (both sessions of each pair hold a ~4 MB
// frame), and under the 96 MiB. Before, the JSON report of the 48 MB pair peaked at
// ~250 MiB and the text one at ~125 MiB. Sanitizer builds have their own overhead: the test is
// skipped there (as stream_memory_test.cpp skips its bounds).
#include "fault_support.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <iostream>

namespace msptk::e2e {
namespace {

namespace fs = std::filesystem;

constexpr long kGrowthKib = 6 * 1024;  // what the 6x longer pair may add to the peak
constexpr long kTargetKib = 96 * 1024;

fs::path generate(const test::TempDir& tmp, const std::string& name, int mb) {
  const fs::path out = tmp / name;
  CommandRun gen = run_command({MSPTK_BENCH_GEN, "--out", out.string(), "--mb", std::to_string(mb), "--seed", "12"},
                               std::chrono::seconds(60));
  EXPECT_EQ(gen.exit.code, 0) << gen.err;
  return out;
}

TEST(DiffMemoryE2E, PeakRssOfUnrelatedSessionsDoesNotGrowWithTheirLength) {
  if (kSanitized) GTEST_SKIP() << "peak RSS is not measured under sanitizers";
  test::TempDir tmp;
  const fs::path shorter = generate(tmp, "short", 8), longer = generate(tmp, "long", 48);
  EXPECT_GT(fs::file_size(longer / "base" / "transcript.ndjson"),
            5 * fs::file_size(shorter / "base" / "transcript.ndjson"));
  for (const std::string format : {"text", "json"}) {
    auto diff = [&](const fs::path& pair) {
      test::TempDir scratch;
      Measured m = run_measured({msptk_bin(), "diff", "--format", format, (pair / "base").string(),
                                 (pair / "unrelated").string()},
                                scratch.path(), {}, true, std::chrono::seconds(60));
      EXPECT_EQ(m.exit.code, 1) << m.err;  // divergent
      EXPECT_TRUE(m.err.empty()) << m.err;
      return m.max_rss_kib;
    };
    const long short_kib = diff(shorter), long_kib = diff(longer);
    std::cout << "[ peak RSS ] diff --format " << format << ": 8 MB " << short_kib << " KiB; 48 MB " << long_kib
              << " KiB\n";
    EXPECT_LT(short_kib, kTargetKib) << format;
    EXPECT_LT(long_kib, kTargetKib) << format;
    EXPECT_LT(long_kib, short_kib + kGrowthKib) << format << ": peak RSS grew with the sessions' length";
  }
}

// Without a usable temporary folder the report is the same: the diff runs again with its entries
// kept (cli/diff.cpp).
TEST(DiffMemoryE2E, WithoutATemporaryFolderTheReportIsTheSame) {
  test::TempDir tmp;
  const fs::path cases = fs::path(MSPTK_SOURCE_DIR) / "tests" / "golden" / "diff";
  for (const std::string name : {"divergent", "divergent-json"}) {
    const fs::path dir = cases / name;
    for (const std::string format : {"text", "json"}) {
      const std::string args = "diff --format " + format + " '" + (dir / "a").string() + "' '" + (dir / "b").string() + "'";
      auto run = [&](const std::string& env, const std::string& out) {
        const std::string cmd = env + " '" + msptk_bin() + "' " + args + " > '" + (tmp / out).string() + "' 2>&1";
        const int status = std::system(cmd.c_str());
        EXPECT_TRUE(WIFEXITED(status)) << cmd;
        EXPECT_EQ(WEXITSTATUS(status), 1) << cmd;  // divergent
        return test::read_text(tmp / out);
      };
      const std::string spooled = run("", "spooled");
      EXPECT_EQ(run("TMPDIR=/nonexistent/msptk", "kept"), spooled) << name << " " << format;
      EXPECT_NE(spooled.find("divergent"), std::string::npos) << spooled;
    }
  }
}

}  // namespace
}  // namespace msptk::e2e
