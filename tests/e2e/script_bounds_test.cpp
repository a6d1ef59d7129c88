// `msptk record --script` is as bounded as the recorder, end to end with real processes
// (msptk_minting_host's hostile options): a host that stops reading while a large frame is sent
// cannot hold a step past its timeoutMs (then the stop ladder ends it, the recording is kept and
// marked incomplete); a host that floods frames while a step waits, or writes a line that never
// ends, does not make msptk's memory grow with what it writes (peak RSS through wait4, generous
// bounds, not asserted under sanitizers); a line past the player's limit completes its step by
// its envelope, and a reference into it says why it cannot be read.
#include "fault_support.hpp"

#include "msptk/transcript/manifest.hpp"

#include <fmt/format.h>

namespace msptk::e2e {
namespace {

namespace fs = std::filesystem;

std::string minting_host_bin() { return MSPTK_MINTING_HOST; }

constexpr std::string_view kHandshake = R"({"handshake": {"clientInfo": {"name": "t", "version": "1"}}})";

struct Scripted {
  test::TempDir tmp;
  fs::path script;
  explicit Scripted(const std::string& steps) {
    script = tmp / "s.ndjson";
    test::write_text(script, std::string(kHandshake) + "\n" + steps);
  }
  std::vector<std::string> argv(std::vector<std::string> host, std::vector<std::string> extra = {}) const {
    std::vector<std::string> a = {msptk_bin(), "record", "--script", script.string(), "--out", (tmp / "out").string()};
    a.insert(a.end(), extra.begin(), extra.end());
    a.push_back("--");
    a.push_back(minting_host_bin());
    a.insert(a.end(), host.begin(), host.end());
    return a;
  }
  boost::json::object capture() const {
    auto manifest = read_manifest(tmp / "out" / "manifest.json");
    EXPECT_TRUE(manifest);
    return manifest && manifest->manifest.capture ? *manifest->manifest.capture : boost::json::object{};
  }
};

TEST(ScriptBoundsE2E, ASendTheHostStopsReadingEndsAtTheStepTimeoutAndTheLadderEndsTheHost) {
  // 4 MiB: more than the pipes between the player, the recorder and the host hold.
  Scripted s(R"({"request": "deaf"})"
             "\n"
             R"({"notify": "big/note", "params": {"blob": ")" +
             std::string(4 << 20, 'a') + R"("}, "timeoutMs": 300})" "\n");
  test::TempDir scratch;
  Measured m = run_measured(s.argv({"--deaf-on", "deaf"}, {"--close-timeout-ms", "200"}), scratch.path(), {}, false,
                            std::chrono::seconds(20));
  ASSERT_FALSE(m.timed_out) << "record --script hung on a host that stopped reading";
  EXPECT_EQ(m.exit.code, 1) << m.err;
  EXPECT_NE(m.err.find(fmt::format("msptk: error: {}:3: sending {{\"jsonrpc\":\"2.0\",\"method\":\"big/note\"",
                                   s.script.string())),
            std::string::npos)
      << m.err;
  EXPECT_NE(m.err.find(": timed out after 300 ms with "), std::string::npos) << m.err;
  EXPECT_NE(m.err.find("(the host stopped reading its stdin)"), std::string::npos) << m.err;
  EXPECT_NE(m.err.find("[script.timeout]"), std::string::npos) << m.err;
  auto capture = s.capture();
  EXPECT_EQ(capture.at("status"), "incomplete");
  EXPECT_EQ(capture.at("script").at("failure").at("line"), 3);
  EXPECT_EQ(capture.at("script").at("failure").at("rule"), "script.timeout");
  EXPECT_EQ(capture.at("hostDidNotExit"), true);  // the ladder ended it (it ignores its stdin's end)
  EXPECT_EQ(capture.at("exit").at("signalName"), "SIGTERM");
  // What the recorder read of the unfinished frame is kept as the client's unterminated tail.
  EXPECT_GT(capture.at("client").at("unterminated").at("bytes").as_int64(), 0) << boost::json::serialize(capture);
  EXPECT_EQ(read_wire_frames(s.tmp / "out" / "transcript.ndjson").size(), 5u);  // handshake, deaf and its result
  auto validate = run_command({msptk_bin(), "validate", (s.tmp / "out").string()});
  EXPECT_EQ(validate.exit.code, 0) << validate.out << validate.err;
}

TEST(ScriptBoundsE2E, AFloodWhileAStepWaitsKeepsMemoryFlatAndTheWaitTakesItsFrame) {
  // 120,000 notifications of ~230 bytes (~28 MB) that no wait names, then the one the wait names.
  Scripted s(R"({"request": "flood", "wait": false})" "\n" R"({"wait": "flood/done", "where": {"params.n": 120000}})" "\n");
  test::TempDir scratch;
  Measured m = run_measured(s.argv({"--flood-on", "flood", "--flood", "120000", "--flood-bytes", "200"}), scratch.path(), {},
                            false, std::chrono::seconds(60));
  ASSERT_FALSE(m.timed_out);
  EXPECT_EQ(m.exit.code, 0) << m.err;
  EXPECT_EQ(s.capture().at("status"), "complete");
  EXPECT_EQ(s.capture().at("server").at("frames"), 120003);  // initialize's result, the ticks, done, the result
  std::cout << "[ peak RSS ] record --script, a 28 MB flood: " << m.max_rss_kib << " KiB\n";
  if (!kSanitized) {
    EXPECT_LT(m.max_rss_kib, 48 * 1024);  // every frame kept parsed: hundreds of MiB
  }
}

TEST(ScriptBoundsE2E, AnUnterminatedLineFromTheHostIsNotHeld) {
  // 64 MiB without an LF while the request waits for its response, then the host exits.
  Scripted s(R"({"request": "blob", "timeoutMs": 60000})" "\n");
  test::TempDir scratch;
  Measured m = run_measured(s.argv({"--unterminated-on", "blob", "--long-bytes", std::to_string(64 << 20)}),
                            scratch.path(), {}, false, std::chrono::seconds(60));
  ASSERT_FALSE(m.timed_out);
  EXPECT_EQ(m.exit.code, 3) << m.err;
  EXPECT_NE(m.err.find(fmt::format("{}:2: waiting for the response to blob (id 2): the host closed its output",
                                   s.script.string())),
            std::string::npos)
      << m.err;
  auto capture = s.capture();
  EXPECT_EQ(capture.at("status"), "incomplete");
  EXPECT_GT(capture.at("server").at("unterminated").at("bytes").as_int64(), 64 << 20);  // kept whole, in its side file
  std::cout << "[ peak RSS ] record --script, a 64 MiB line without LF: " << m.max_rss_kib << " KiB\n";
  if (!kSanitized) {
    EXPECT_LT(m.max_rss_kib, 40 * 1024);  // buffered whole: over 64 MiB
  }
}

TEST(ScriptBoundsE2E, ALinePastThePlayersLimitCompletesItsStepButCannotBeReferenced) {
  Scripted s(R"({"request": "blob", "name": "b"})" "\n"
             R"({"notify": "echo", "params": {"v": "${b:result.blob}"}})" "\n");
  auto run = run_command(s.argv({"--long-on", "blob", "--long-bytes", std::to_string(3 << 20)}));
  EXPECT_EQ(run.exit.code, 1) << run.err;
  EXPECT_NE(run.err.find(fmt::format("{}:3: reference \"${{b:result.blob}}\": the response to blob (line 2) is {} "
                                     "bytes, over the 1048576 bytes the player holds: only its envelope was kept (the "
                                     "recording has it whole) [script.unresolved]",
                                     s.script.string(), (3 << 20) + 45)),
            std::string::npos)
      << run.err;
  auto frames = read_wire_frames(s.tmp / "out" / "transcript.ndjson");
  ASSERT_EQ(frames.size(), 5u);
  EXPECT_EQ(frames[4].second.size(), static_cast<std::size_t>((3 << 20) + 45));
}

}  // namespace
}  // namespace msptk::e2e
