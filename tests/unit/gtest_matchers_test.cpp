#include "msptk/gtest.hpp"
#include "test_support.hpp"

#include <gtest/gtest-spi.h>

namespace msptk {
namespace {

const char* kGolden =
    R"({"dir":"client","raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"clientInfo\":{\"name\":\"a\",\"version\":\"1\"}}}"})"
    "\n"
    R"({"dir":"server","raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":true}}"})"
    "\n";

TEST(GtestMatchers, EquivalentTranscriptsPass) {
  test::TempDir tmp;
  test::write_text(tmp / "golden.ndjson", kGolden);
  // Another client: its own id and name, members reordered.
  test::write_text(tmp / "actual.ndjson",
                   R"({"dir":"client","raw":"{\"id\":\"x7\",\"method\":\"initialize\",\"jsonrpc\":\"2.0\",\"params\":{\"clientInfo\":{\"version\":\"9\",\"name\":\"b\"}}}"})"
                   "\n"
                   R"({"dir":"server","raw":"{\"jsonrpc\":\"2.0\",\"id\":\"x7\",\"result\":{\"ok\":true}}"})"
                   "\n");
  EXPECT_TRANSCRIPT_EQUIVALENT(tmp / "golden.ndjson", tmp / "actual.ndjson");
  ASSERT_TRANSCRIPT_EQUIVALENT(tmp / "golden.ndjson", tmp / "golden.ndjson");
}

TEST(GtestMatchers, DivergenceFailsWithThePathLevelReport) {
  test::TempDir tmp;
  test::write_text(tmp / "golden.ndjson", kGolden);
  std::string changed = kGolden;
  changed.replace(changed.find("true"), 4, "false");
  test::write_text(tmp / "actual.ndjson", changed);
  // EXPECT_FATAL_FAILURE cannot see locals.
  static std::filesystem::path golden, actual;
  golden = tmp / "golden.ndjson";
  actual = tmp / "actual.ndjson";
  EXPECT_NONFATAL_FAILURE(EXPECT_TRANSCRIPT_EQUIVALENT(golden, actual), "result.ok: true → false");
  EXPECT_FATAL_FAILURE(ASSERT_TRANSCRIPT_EQUIVALENT(golden, actual), "divergent: 2 frames");
}

TEST(GtestMatchers, UnreadableInputFails) {
  EXPECT_NONFATAL_FAILURE(EXPECT_TRANSCRIPT_EQUIVALENT("/nonexistent/a", "/nonexistent/b"), "cannot compare");
}

TEST(GtestMatchers, EveryCorpusScenarioIsEquivalentToItself) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  for (const auto& dir : test::corpus_scenarios()) EXPECT_TRANSCRIPT_EQUIVALENT(dir, dir);
}

}  // namespace
}  // namespace msptk
