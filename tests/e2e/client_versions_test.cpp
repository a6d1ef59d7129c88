// The "client behaviour across versions" workflow (README, `## Comparing client versions`):
// record client v1 and client v2 against the canned host, then `msptk diff v1 v2 --side client`
// shows what the client now sends differently, with the ids each version minted unified.
#include "e2e_support.hpp"

#include <fmt/format.h>

namespace msptk::e2e {
namespace {

std::string remint_client_bin() { return MSPTK_REMINT_CLIENT; }

// `CLIENT... -- msptk record --out DIR -- msptk serve-fixture --transcript SCENARIO`
CommandRun record_client(std::vector<std::string> client, const std::filesystem::path& out,
                         const std::filesystem::path& scenario) {
  const std::vector<std::string> rest = {"--", msptk_bin(), "record", "--out", out.string(), "--", msptk_bin(),
                                         "serve-fixture", "--transcript", scenario.string()};
  client.insert(client.end(), rest.begin(), rest.end());
  return run_command(client);
}

std::string last_line(const std::string& text) {
  std::string trimmed = text.substr(0, text.find_last_not_of('\n') + 1);
  return trimmed.substr(trimmed.rfind('\n') + 1);
}

std::vector<std::filesystem::path> playable_scenarios() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(test::source_dir() / "corpus"))
    if (std::filesystem::exists(e.path() / "manifest.json")) out.push_back(e.path());
  for (const auto& dir : test::corpus_scenarios()) out.push_back(dir);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ClientVersions, AClientWithItsOwnIdsSendsEquivalentFrames) {
  std::size_t compared = 0;
  for (const auto& scenario : playable_scenarios()) {
    SCOPED_TRACE(scenario.string());
    test::TempDir tmp;
    const auto transcript = (scenario / "transcript.ndjson").string();
    auto v1 = record_client({fake_client_bin(), "--transcript", transcript}, tmp / "v1", scenario);
    ASSERT_EQ(v1.exit.shell_code(), 0) << v1.err;
    auto v2 = record_client({remint_client_bin(), "--transcript", transcript, "--report", (tmp / "r.json").string()},
                            tmp / "v2", scenario);
    ASSERT_EQ(v2.exit.shell_code(), 0) << v2.err;

    auto diff = run_command({msptk_bin(), "diff", (tmp / "v1").string(), (tmp / "v2").string(), "--side", "client"});
    EXPECT_EQ(diff.exit.code, 0) << diff.out;
    // v2 minted other ids and names itself differently: equivalent, never identical.
    EXPECT_TRUE(last_line(diff.out).starts_with("equivalent: ")) << diff.out;
    ++compared;
  }
  EXPECT_GE(compared, 6u);
}

TEST(ClientVersions, AChangedRequestIsShownWithItsPathAndLine) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  const auto scenario = test::shared_transcripts() / "text-run-single-turn";
  test::TempDir tmp;
  // Client v2 asks for something else in its turn/start (line 7 of the golden transcript).
  std::vector<WireFrame> frames = read_wire_frames(scenario / "transcript.ndjson");
  std::string& turn_start = frames.at(6).second;
  ASSERT_NE(turn_start.find("\"method\":\"turn/start\""), std::string::npos);
  const std::string before = "Run the agent test suite and summarize failures";
  turn_start.replace(turn_start.find(before), before.size(), "Run only the unit tests");
  write_transcript(tmp / "v2-client.ndjson", frames);

  auto v1 = record_client({fake_client_bin(), "--transcript", (scenario / "transcript.ndjson").string()}, tmp / "v1",
                          scenario);
  ASSERT_EQ(v1.exit.shell_code(), 0) << v1.err;
  // The canned host stops at v2's changed frame (it never improvises): v2's session ends there.
  auto v2 = record_client({fake_client_bin(), "--transcript", (tmp / "v2-client.ndjson").string()}, tmp / "v2",
                          scenario);
  EXPECT_NE(v2.exit.shell_code(), 0);

  auto diff = run_command({msptk_bin(), "diff", (tmp / "v1").string(), (tmp / "v2").string(), "--side", "client"});
  EXPECT_EQ(diff.exit.code, 1) << diff.out;
  EXPECT_NE(diff.out.find(fmt::format("params.input[0].text: \"{}\" → \"Run only the unit tests\"", before)),
            std::string::npos)
      << diff.out;
  EXPECT_NE(diff.out.find("v1/transcript.ndjson:7"), std::string::npos) << diff.out;
  EXPECT_TRUE(last_line(diff.out).starts_with("divergent: ")) << diff.out;
}

}  // namespace
}  // namespace msptk::e2e
