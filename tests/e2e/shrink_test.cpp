// End-to-end tests of `msptk shrink` with real processes: a host with a planted bug (the fake
// host's --bug-after/--bug-on: once a config/set request has arrived, its answer to the next
// tool/run request is wrong) on the 40th request of a 500-frame session is shrunk to the
// handshake plus those two exchanges; a client that fails against serve-fixture is shrunk
// too; a host that passes leaves nothing written; a host that cannot run is exit 3.
#include "e2e_support.hpp"

#include "msptk/transcript/manifest.hpp"

#include <fmt/format.h>

namespace msptk::e2e {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using test::TempDir;

std::string req(int id, const std::string& method) {
  return fmt::format(R"({{"jsonrpc":"2.0","id":{},"method":"{}","params":{{"n":{}}}}})", id, method, id);
}
std::string res(int id) { return fmt::format(R"({{"jsonrpc":"2.0","id":{},"result":{{"ok":true,"n":{}}}}})", id, id); }
std::string note(const std::string& method, int n) {
  return fmt::format(R"({{"jsonrpc":"2.0","method":"{}","params":{{"n":{},"text":"h\u00e9"}}}})", method, n);
}

// The handshake, then exchanges of 4 frames (request, two progress notifications, response);
// request 4 (exchange 3) is config/set, request 40 (exchange 39) is tool/run, the only one after
// it; a last notification makes 500 frames.
fs::path long_session(const fs::path& dir) {
  fs::create_directories(dir);
  auto base = read_manifest(test::source_dir() / "corpus" / "handshake-request-before-initialize" / "manifest.json");
  Manifest m = base->manifest;
  m.scenario = dir.filename().string();
  m.source = {SourceRange{"1-3", "the handshake", 1, 3}};
  EXPECT_TRUE(write_manifest(dir / "manifest.json", m));
  std::vector<WireFrame> frames = {
      {Direction::client, req(1, "initialize")}, {Direction::server, res(1)},
      {Direction::client, R"({"jsonrpc":"2.0","method":"initialized"})"}};
  for (int k = 1; k <= 124; ++k) {
    const int id = k + 1;
    const std::string method = id == 4 ? "config/set" : id == 40 ? "tool/run" : id < 4 ? "tool/run" : "status/get";
    frames.push_back({Direction::client, req(id, method)});
    frames.push_back({Direction::server, note("progress", id)});
    frames.push_back({Direction::server, note("progress", id + 1000)});
    frames.push_back({Direction::server, res(id)});
  }
  frames.push_back({Direction::server, note("goodbye", 0)});
  EXPECT_EQ(frames.size(), 500u);
  write_transcript(dir / "transcript.ndjson", frames);
  return dir;
}

std::string buggy_host() {
  return fake_host_bin() + " --transcript {scenario}/transcript.ndjson --bug-after config/set --bug-on tool/run";
}

std::vector<std::string> methods_of_requests(const fs::path& transcript) {
  std::vector<std::string> out;
  for (const WireFrame& f : read_wire_frames(transcript)) {
    if (f.first != Direction::client) continue;
    json::value v = json::parse(f.second);
    if (v.as_object().contains("id")) out.emplace_back(v.at("method").as_string());
  }
  return out;
}

TEST(ShrinkE2E, APlantedBugOnThe40thRequestShrinksToTheHandshakeAndTheTwoExchanges) {
  TempDir tmp;
  const fs::path s = long_session(tmp / "long-session");
  CommandRun check = run_command({msptk_bin(), "validate", s.string()});
  ASSERT_EQ(check.exit.code, 0) << check.out << check.err;
  const fs::path out = tmp / "short-session";
  CommandRun run = run_command({msptk_bin(), "shrink", s.string(), "--out", out.string(), "--host", buggy_host()},
                               std::chrono::seconds(110));
  ASSERT_EQ(run.exit.code, 0) << run.out << run.err;
  std::cout << run.out;
  EXPECT_NE(run.out.find("500 -> 11 frames (handshake 3 + 2 of 124 exchanges)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("lines kept of the original transcript: 1-3,12-15,156-159"), std::string::npos) << run.out;
  EXPECT_EQ(methods_of_requests(out / "transcript.ndjson"),
            (std::vector<std::string>{"initialize", "config/set", "tool/run"}));
  // The result is a valid scenario that still fails the same way, and only with the bug.
  CommandRun valid = run_command({msptk_bin(), "validate", out.string()});
  EXPECT_EQ(valid.exit.code, 0) << valid.out << valid.err;
  json::object manifest = read_json_object(out / "manifest.json");
  EXPECT_EQ(manifest.at("scenario"), "short-session");
  EXPECT_EQ(manifest.at("shrunkFrom").at("scenario"), "long-session");
  EXPECT_EQ(manifest.at("shrunkFrom").at("frames"), 500);
  EXPECT_EQ(manifest.at("shrunkFrom").at("failure").at("kind"), "divergent");
  CommandRun again = run_command({msptk_bin(), "replay", "--transcript", out.string(), "--", fake_host_bin(),
                                  "--transcript", (out / "transcript.ndjson").string(), "--bug-after", "config/set",
                                  "--bug-on", "tool/run"});
  EXPECT_EQ(again.exit.code, 1) << again.out;
  EXPECT_NE(again.out.find("plantedBug"), std::string::npos) << again.out;
}

TEST(ShrinkE2E, AHostThatPassesLeavesNothingWrittenAndExits1) {
  TempDir tmp;
  const fs::path s = long_session(tmp / "long-session");
  const fs::path out = tmp / "short";
  CommandRun run = run_command({msptk_bin(), "shrink", s.string(), "--out", out.string(), "--host",
                                fake_host_bin() + " --transcript {scenario}/transcript.ndjson"});
  EXPECT_EQ(run.exit.code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("the failure did not reproduce"), std::string::npos) << run.out;
  EXPECT_FALSE(fs::exists(out));
}

TEST(ShrinkE2E, AHostThatCannotRunExits3) {
  TempDir tmp;
  const fs::path s = long_session(tmp / "long-session");
  CommandRun run = run_command({msptk_bin(), "shrink", s.string(), "--out", (tmp / "o").string(), "--host",
                                (tmp / "no-such-host").string()});
  EXPECT_EQ(run.exit.code, 3) << run.out << run.err;
  EXPECT_FALSE(fs::exists(tmp / "o"));
}

// --client: a fake client whose config/set request (request 4) differs from the recording at
// params.n, run against serve-fixture of each candidate. The client always plays its own
// whole session, so the failure (a frameDivergence at params.n of config/set) needs the
// exchanges before config/set too: the handshake and requests 2, 3 and 4 are kept.
TEST(ShrinkE2E, AClientThatFailsAgainstServeFixtureIsShrunk) {
  TempDir tmp;
  const fs::path s = long_session(tmp / "long-session");
  std::vector<WireFrame> theirs = read_wire_frames(s / "transcript.ndjson");
  for (WireFrame& f : theirs)
    if (f.second == req(4, "config/set")) f.second = R"({"jsonrpc":"2.0","id":4,"method":"config/set","params":{"n":5}})";
  write_transcript(tmp / "client.ndjson", theirs);
  const std::string client = fmt::format("{} --transcript {} -- {} serve-fixture --transcript {{scenario}}",
                                         fake_client_bin(), (tmp / "client.ndjson").string(), msptk_bin());
  const fs::path out = tmp / "short";
  CommandRun run = run_command({msptk_bin(), "shrink", s.string(), "--out", out.string(), "--client", client,
                                "--timeout-ms", "5000"},
                               std::chrono::seconds(110));
  ASSERT_EQ(run.exit.code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("failure kept: frameDivergence"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("at params.n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("500 -> 15 frames"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace msptk::e2e
