// `msptk learn` end to end, the recording session of docs/script.md: a script recorded three
// times against msptk_minting_host (a live host minting ids, server request ids, timestamps,
// durations and ids inside longer strings on every run), learned with --write, then validated
// and `check`ed against the host: it passes. The same host with a planted change in a field
// nobody declared fails check naming that path; learning from three other recordings gives the
// same declarations; recordings of different lengths are exit 1 with the remedy, nothing
// written; record refuses an unregistered path before the host runs (exit 2, nothing written).
#include "e2e_support.hpp"

#include <fmt/format.h>

#include <set>
#include <sstream>

namespace msptk::e2e {
namespace {

namespace fs = std::filesystem;

std::string minting_host_bin() { return MSPTK_MINTING_HOST; }

constexpr std::string_view kScript =
    R"({"handshake": {"clientInfo": {"name": "learn-test", "version": "1.0.0"}}}
{"command": "session/start", "params": {"workspaceRoot": "/tmp/w"}, "name": "start"}
{"command": "turn/start", "params": {"sessionId": "${start:result.session.sessionId}", "input": [{"type": "text", "text": "Bump the version"}]}}
{"answer": "approval/request", "result": {}}
{"command": "approval/decide", "params": {"sessionId": "${start:result.session.sessionId}", "approvalId": "${last approval/request:params.approvalId}", "choiceId": "allow_once"}}
{"wait": "turn/completed"}
)";

struct Session {
  test::TempDir tmp;
  fs::path script;
  Session() {
    script = tmp / "turn.ndjson";
    test::write_text(script, std::string(kScript));
  }
  void record(const fs::path& out) const {
    auto run = run_command({msptk_bin(), "record", "--script", script.string(), "--out", out.string(), "--",
                            minting_host_bin()});
    ASSERT_EQ(run.exit.shell_code(), 0) << run.err;
  }
  CommandRun learn(const std::vector<fs::path>& runs, bool write) const {
    std::vector<std::string> argv = {msptk_bin(), "learn"};
    for (const fs::path& r : runs) argv.push_back(r.string());
    if (write) argv.push_back("--write");
    return run_command(argv);
  }
};

// The "  PATH  HOW  ..." lines of learn's report, as "PATH HOW".
std::set<std::string> declarations_of(const std::string& report) {
  std::set<std::string> out;
  std::istringstream in(report);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("  ")) continue;
    std::istringstream words(line);
    std::string path, how;
    words >> path >> how;
    out.insert(path + " " + how);
  }
  return out;
}

TEST(LearnE2E, RecordThreeTimesLearnCheckPassesAndAPlantedChangeFailsNamingItsPath) {
  Session s;
  const fs::path runs = s.tmp / "runs";
  for (const char* name : {"a", "b", "c"}) s.record(runs / name);
  auto learned = s.learn({runs / "a", runs / "b", runs / "c"}, true);
  ASSERT_EQ(learned.exit.code, 0) << learned.out << learned.err;
  const auto declared = declarations_of(learned.out);
  for (const char* expected : {"params.sessionId unify", "params.emittedAtMs non-negative-integer",
                               "result.session.createdAt rfc3339", "params.durationMs non-negative-integer",
                               "params.item.ref unify", "id unify", "params.approvalId unify"})
    EXPECT_TRUE(declared.count(expected)) << expected << "\n" << learned.out;
  EXPECT_TRUE(fs::exists(runs / "msptk-corpus.json"));
  EXPECT_NE(learned.out.find("written: "), std::string::npos) << learned.out;

  auto validate = run_command({msptk_bin(), "validate", runs.string()});
  EXPECT_EQ(validate.exit.code, 0) << validate.out << validate.err;
  auto check = run_command({msptk_bin(), "check", runs.string(), "--host", minting_host_bin()});
  EXPECT_EQ(check.exit.code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("3 passed, 0 failed"), std::string::npos) << check.out;

  auto planted = run_command({msptk_bin(), "check", runs.string(), "--host", minting_host_bin() + " --plant"});
  EXPECT_EQ(planted.exit.code, 1) << planted.out << planted.err;
  EXPECT_NE(planted.out.find("params.item.kind"), std::string::npos) << planted.out;

  // Stable: three other recordings give the same declarations.
  const fs::path more = s.tmp / "more";
  for (const char* name : {"d", "e", "f"}) s.record(more / name);
  auto again = s.learn({more / "d", more / "e", more / "f"}, false);
  ASSERT_EQ(again.exit.code, 0) << again.out << again.err;
  EXPECT_EQ(declarations_of(again.out), declared) << again.out;
  EXPECT_FALSE(fs::exists(more / "msptk-corpus.json"));  // without --write nothing is written
}

TEST(LearnE2E, RecordingsOfDifferentLengthsAreExit1WithTheRemedyAndNothingWritten) {
  Session s;
  const fs::path runs = s.tmp / "runs";
  s.record(runs / "a");
  const fs::path shorter = s.tmp / "short.ndjson";
  test::write_text(shorter, std::string(kScript.substr(0, kScript.find("{\"command\": \"turn/start\""))));
  auto run = run_command({msptk_bin(), "record", "--script", shorter.string(), "--out", (runs / "b").string(), "--",
                          minting_host_bin()});
  ASSERT_EQ(run.exit.code, 0) << run.err;
  const std::string before = test::read_text(runs / "a" / "manifest.json");
  auto learned = s.learn({runs / "a", runs / "b"}, true);
  EXPECT_EQ(learned.exit.code, 1) << learned.out << learned.err;
  EXPECT_NE(learned.out.find("a stream of variable length"), std::string::npos) << learned.out;
  EXPECT_NE(learned.out.find("--id-seed"), std::string::npos) << learned.out;
  EXPECT_NE(learned.out.find("nothing was written"), std::string::npos) << learned.out;
  EXPECT_FALSE(fs::exists(runs / "msptk-corpus.json"));
  EXPECT_EQ(test::read_text(runs / "a" / "manifest.json"), before);
}

TEST(LearnE2E, RecordRefusesAnUnregisteredPathBeforeTheHostRunsAndWritesNothing) {
  Session s;
  const fs::path out = s.tmp / "corpus" / "x";
  auto run = run_command({msptk_bin(), "record", "--script", s.script.string(), "--out", out.string(), "--normalize",
                          "params.sessionId", "--", minting_host_bin()});
  EXPECT_EQ(run.exit.code, 2) << run.err;
  EXPECT_NE(run.err.find("params.sessionId"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find((s.tmp / "corpus" / "msptk-corpus.json").string()), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(out));
  // Every other member too: a scenario id that is not the folder's name.
  auto named = run_command({msptk_bin(), "record", "--script", s.script.string(), "--out", out.string(), "--scenario",
                            "other", "--", minting_host_bin()});
  EXPECT_EQ(named.exit.code, 2) << named.err;
  EXPECT_NE(named.err.find("differs from the folder name"), std::string::npos) << named.err;
  EXPECT_FALSE(fs::exists(out));
  // Declared in the corpus file, the same command records a scenario validate accepts.
  fs::create_directories(s.tmp / "corpus");
  test::write_text(s.tmp / "corpus" / "msptk-corpus.json", R"({"kind": "msptkCorpus", "paths": {"params.sessionId": "unify"}})");
  auto again = run_command({msptk_bin(), "record", "--script", s.script.string(), "--out", out.string(), "--normalize",
                            "params.sessionId", "--", minting_host_bin()});
  ASSERT_EQ(again.exit.code, 0) << again.err;
  auto validate = run_command({msptk_bin(), "validate", out.string()});
  EXPECT_EQ(validate.exit.code, 0) << validate.out << validate.err;
}

}  // namespace
}  // namespace msptk::e2e
