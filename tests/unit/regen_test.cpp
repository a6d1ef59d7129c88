// regen_scenario against hosts made of pipes and a thread: byte-identical captures leave the
// scenario untouched, equivalent ones replace it, divergent ones are refused unless the
// manifest justifies them, and a rewrite is one exchange (an interrupted one changes nothing).
#include "msptk/maintenance/regen.hpp"
#include "msptk/process/fd_io.hpp"
#include "msptk/recorder/clock.hpp"
#include "msptk/transcript/framing.hpp"
#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/writer.hpp"
#include "pipe_host.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <deque>
#include <sstream>

namespace msptk::maintenance {
namespace {

namespace fs = std::filesystem;
using process::ExitStatus;
using test::TempDir;
using Script = std::vector<std::pair<Direction, std::string>>;
constexpr auto C = Direction::client;
constexpr auto S = Direction::server;

Script recorded() {
  return {
      {C, R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"0"}}})"},
      {S, R"({"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"muse"}}})"},
      {C, R"({"jsonrpc":"2.0","method":"initialized"})"},
      {C, R"({"jsonrpc":"2.0","id":2,"method":"session/start","params":{"commandId":"c1","workspaceRoot":"/w"}})"},
      {S, R"({"jsonrpc":"2.0","id":2,"result":{"session":{"sessionId":"sess-A","title":"x"}}})"},
  };
}

Script with(Script s, std::size_t index, const std::string& from, const std::string& to) {
  std::string& raw = s[index].second;
  raw.replace(raw.find(from), from.size(), to);
  return s;
}

// Plays `script`'s server frames once the client frames before them arrived; `silent_after`
// > 0: writes nothing after that many client frames. Then reads stdin to EOF.
ExitStatus play(const Script& script, std::size_t silent_after, int in, int out) {
  LineFramer framer;
  std::deque<std::string> lines;
  char buffer[4096];
  auto next = [&]() -> bool {
    while (lines.empty()) {
      process::IoResult r = process::read_some(in, buffer, sizeof buffer);
      if (r.eof || r.error) return false;
      framer.feed(std::string_view(buffer, r.bytes), [&](const FramedLine& l) { lines.emplace_back(l.bytes); });
    }
    lines.pop_front();
    return true;
  };
  std::size_t clients = 0;
  for (const auto& [dir, raw] : script) {
    if (dir == C) {
      if (!next()) return ExitStatus{0, 0};
      ++clients;
    } else if (!silent_after || clients < silent_after) {
      process::write_all(out, raw + "\n");
    }
  }
  while (next()) {
  }
  return ExitStatus{0, 0};
}

const std::string kFingerprint = "sha256:" + std::string(64, 'a');

std::string manifest_text(const std::string& name, const std::string& provenance, const std::string& justification) {
  return "{\n  \"kind\": \"mspTranscript\",\n  \"schemaVersion\": 1,\n  \"scenario\": \"" + name +
         "\",\n  \"provenance\":  \"" + provenance + "\",\n" + justification + "  \"fingerprint\": \"" + kFingerprint +
         "\",\n  \"viewSchemaVersion\": 1,\n  \"serverConfig\": {\"frameLimitBytes\": 4096},\n"
         "  \"transports\": [\"stdio\"],\n  \"normalize\": [\"id\", \"params.commandId\", \"result.session.sessionId\"],\n"
         "  \"seeds\": {\"idSeed\": 7, \"clockStartMs\": 5},\n  \"source\": [{\"lines\": \"1-5\", \"cite\": \"unit\"}],\n"
         "  \"x-kept\": \"every other byte\"\n}\n";
}

const std::string kJustified =
    "  \"regenerationJustification\": {\"cite\": \"owner ruling r1\", \"rationale\": \"the fixture was wrong\", "
    "\"trackingIssue\": \"#12\", \"extra\": 1},\n";

fs::path write_scenario(const fs::path& dir, const Script& script, const std::string& provenance = "hand-authored",
                        const std::string& justification = "") {
  fs::create_directories(dir);
  test::write_text(dir / "manifest.json", manifest_text(dir.filename().string(), provenance, justification));
  auto writer = TranscriptWriter::create(dir / "transcript.ndjson");
  EXPECT_TRUE(writer);
  for (const auto& [d, raw] : script) EXPECT_TRUE(writer->append(d, raw));
  test::write_text(dir / "records.jsonl", "{\"kept\":true}\n");
  return dir;
}

struct RegenRun {
  Result<RegenResult> result = Error::usage("not run");
  bool spawned = false;
  std::string text;
};

RegenRun regen(const fs::path& scenario, const Script& host, std::size_t silent_after = 0,
          std::function<void(RegenOptions&)> adjust = {}) {
  RegenRun run;
  static const recorder::FixedClock clock(std::chrono::system_clock::time_point(std::chrono::milliseconds(5)));
  ReplayEnv env;
  env.clock = &clock;
  env.handle_signals = false;
  env.spawn = [&, host, silent_after](const process::SpawnSpec&) -> Result<std::unique_ptr<process::HostProcess>> {
    run.spawned = true;
    return std::make_unique<test::PipeHost>(
        [host, silent_after](int in, int out, int, const std::atomic<int>&) { return play(host, silent_after, in, out); });
  };
  RegenOptions options;
  options.scenario = scenario;
  options.host_argv = {"muse", "serve"};
  options.timeout_ms = 1500;
  if (adjust) adjust(options);
  run.result = regen_scenario(options, env);
  if (run.result) {
    std::ostringstream out;
    render_regen_text(*run.result, out);
    run.text = out.str();
  }
  return run;
}

// Nothing but the scenario folder is left in its parent (no staging folder).
void expect_no_leftovers(const fs::path& scenario) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(scenario.parent_path())) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{scenario.filename().string()});
}

TEST(Regen, AByteIdenticalCaptureLeavesTheScenarioUntouched) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded());
  const std::string transcript = test::read_text(s / "transcript.ndjson");
  const std::string manifest = test::read_text(s / "manifest.json");
  RegenRun run = regen(s, recorded());
  ASSERT_TRUE(run.result) << run.result.error().render();
  EXPECT_EQ(run.result->outcome, RegenOutcome::identical);
  EXPECT_FALSE(run.result->rewritten);
  EXPECT_EQ(run.result->exit_code, 0);
  EXPECT_EQ(test::read_text(s / "transcript.ndjson"), transcript);
  EXPECT_EQ(test::read_text(s / "manifest.json"), manifest);
  EXPECT_NE(run.text.find("identical"), std::string::npos) << run.text;
  expect_no_leftovers(s);
}

TEST(Regen, AnEquivalentCaptureReplacesTheTranscriptAndBecomesHostGenerated) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded());
  const std::string manifest = test::read_text(s / "manifest.json");
  const Script minted = with(recorded(), 4, "sess-A", "sess-B");  // a normalized path
  RegenRun run = regen(s, minted);
  ASSERT_TRUE(run.result) << run.result.error().render();
  EXPECT_EQ(run.result->outcome, RegenOutcome::equivalent) << run.text;
  EXPECT_TRUE(run.result->rewritten);
  EXPECT_EQ(run.result->exit_code, 0);
  EXPECT_NE(test::read_text(s / "transcript.ndjson").find("sess-B"), std::string::npos);
  std::string expected = manifest;
  expected.replace(expected.find("\"hand-authored\""), 15, "\"host-generated\"");
  // The provenance token changed and `capture` came after the last member; nothing else moved.
  const std::string written = test::read_text(s / "manifest.json");
  const std::size_t last = expected.rfind('"') + 1;  // the end of the last member's value
  EXPECT_EQ(written.substr(0, last), expected.substr(0, last));
  EXPECT_EQ(written.substr(last, 16), ",\n  \"capture\": {");
  EXPECT_TRUE(written.ends_with("\n  }\n}\n")) << written;
  auto reread = read_manifest(s / "manifest.json");
  ASSERT_TRUE(reread);
  EXPECT_TRUE(reread->problems.empty());
  ASSERT_TRUE(reread->manifest.capture);
  EXPECT_EQ(reread->manifest.capture->at("recorder"), "msptk regen");
  EXPECT_EQ(reread->manifest.capture->at("environment").at("mode"), "inherited");
  EXPECT_EQ(test::read_text(s / "records.jsonl"), "{\"kept\":true}\n");
  expect_no_leftovers(s);
}

TEST(Regen, ADivergentCaptureIsNotWrittenWithoutAJustification) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded());
  const std::string transcript = test::read_text(s / "transcript.ndjson");
  RegenRun run = regen(s, with(recorded(), 4, "\"title\":\"x\"", "\"title\":\"y\""));
  ASSERT_TRUE(run.result) << run.result.error().render();
  EXPECT_EQ(run.result->outcome, RegenOutcome::divergent);
  EXPECT_FALSE(run.result->rewritten);
  EXPECT_EQ(run.result->exit_code, 1);
  EXPECT_EQ(test::read_text(s / "transcript.ndjson"), transcript);
  EXPECT_NE(run.text.find("result.session.title"), std::string::npos) << run.text;
  EXPECT_NE(run.text.find("host wrong or fixture wrong?\n"), std::string::npos) << run.text;
  expect_no_leftovers(s);
}

TEST(Regen, ADivergentCaptureIsWrittenUnderACompleteJustificationWhichStays) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded(), "hand-authored", kJustified);
  RegenRun run = regen(s, with(recorded(), 4, "\"title\":\"x\"", "\"title\":\"y\""));
  ASSERT_TRUE(run.result) << run.result.error().render();
  EXPECT_EQ(run.result->outcome, RegenOutcome::divergent);
  EXPECT_TRUE(run.result->rewritten);
  EXPECT_EQ(run.result->exit_code, 0);
  EXPECT_NE(test::read_text(s / "transcript.ndjson").find(R"(\"title\":\"y\")"), std::string::npos);
  const std::string manifest = test::read_text(s / "manifest.json");
  EXPECT_NE(manifest.find(kJustified), std::string::npos);
  EXPECT_NE(manifest.find("\"host-generated\""), std::string::npos);
  EXPECT_NE(run.text.find("host wrong or fixture wrong?"), std::string::npos) << run.text;
}

TEST(Regen, APartialJustificationFailsBeforeAnythingRunsNamingTheMissingMember) {
  TempDir tmp;
  const fs::path s = write_scenario(
      tmp / "s", recorded(), "hand-authored",
      "  \"regenerationJustification\": {\"cite\": \"owner ruling\", \"rationale\": \"because\"},\n");
  RegenRun run = regen(s, recorded());
  ASSERT_FALSE(run.result);
  EXPECT_FALSE(run.spawned);
  EXPECT_EQ(exit_code(run.result.error().kind), 1);
  EXPECT_NE(run.result.error().message.find("trackingIssue"), std::string::npos) << run.result.error().render();
  EXPECT_EQ(run.result.error().rule, "regen.justification");
  expect_no_leftovers(s);
}

TEST(Regen, SdkToleranceScenariosAreRefused) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded(), "sdk-tolerance");
  RegenRun run = regen(s, recorded());
  ASSERT_FALSE(run.result);
  EXPECT_FALSE(run.spawned);
  EXPECT_EQ(exit_code(run.result.error().kind), 2);
  EXPECT_NE(run.result.error().message.find("sdk-tolerance"), std::string::npos);
}

TEST(Regen, AnInterruptedRewriteLeavesTheOldScenarioWhole) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded());
  const std::string transcript = test::read_text(s / "transcript.ndjson");
  const std::string manifest = test::read_text(s / "manifest.json");
  RegenRun run = regen(s, with(recorded(), 4, "sess-A", "sess-B"), 0, [](RegenOptions& o) {
    o.rewrite.exchange = [](const fs::path& staged, const fs::path&) -> Result<void> {
      // The new contents are complete before the exchange...
      EXPECT_NE(test::read_text(staged / "transcript.ndjson").find("sess-B"), std::string::npos);
      EXPECT_TRUE(fs::exists(staged / "records.jsonl"));
      return Error::unreadable(staged.string(), "interrupted");  // ...and the exchange never happens
    };
  });
  ASSERT_TRUE(run.result) << run.result.error().render();  // the report stands
  ASSERT_TRUE(run.result->write_failure);
  EXPECT_FALSE(run.result->rewritten);
  EXPECT_EQ(run.result->exit_code, 3);
  EXPECT_NE(run.text.find("the rewrite failed, the scenario is unchanged"), std::string::npos) << run.text;
  EXPECT_EQ(test::read_text(s / "transcript.ndjson"), transcript);
  EXPECT_EQ(test::read_text(s / "manifest.json"), manifest);
  expect_no_leftovers(s);
}

TEST(Regen, ACaptureCutShortIsNeverWrittenEvenWhenJustified) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded(), "hand-authored", kJustified);
  const std::string transcript = test::read_text(s / "transcript.ndjson");
  RegenRun run = regen(s, recorded(), 3, [](RegenOptions& o) { o.timeout_ms = 200; });  // never answers session/start
  ASSERT_TRUE(run.result) << run.result.error().render();
  EXPECT_EQ(run.result->outcome, RegenOutcome::divergent);
  EXPECT_FALSE(run.result->complete_capture);
  EXPECT_FALSE(run.result->rewritten);
  EXPECT_EQ(run.result->exit_code, 1);
  EXPECT_EQ(test::read_text(s / "transcript.ndjson"), transcript);
  EXPECT_NE(run.text.find("incomplete"), std::string::npos) << run.text;
}

TEST(Regen, AFullDiskBetweenTheTwoWritesLeavesTheOldScenarioWholeAndIsAnError) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded());
  const std::string transcript = test::read_text(s / "transcript.ndjson");
  const std::string manifest = test::read_text(s / "manifest.json");
  RegenRun run = regen(s, with(recorded(), 4, "sess-A", "sess-B"), 0, [](RegenOptions& o) {
    o.rewrite.write = [](const fs::path& file, std::string_view bytes, fs::perms perms) -> Result<void> {
      if (file.filename() == "manifest.json") return Error::unreadable(file.string(), "cannot write: No space left on device");
      return write_file_atomic(file, bytes, perms);
    };
  });
  ASSERT_TRUE(run.result) << run.result.error().render();
  ASSERT_TRUE(run.result->write_failure);
  EXPECT_EQ(exit_code(run.result->write_failure->kind), 3);
  EXPECT_EQ(run.result->exit_code, 3);
  EXPECT_NE(run.text.find("No space left on device"), std::string::npos) << run.text;
  EXPECT_EQ(test::read_text(s / "transcript.ndjson"), transcript);
  EXPECT_EQ(test::read_text(s / "manifest.json"), manifest);
  expect_no_leftovers(s);
}

TEST(Regen, BlankJustificationMembersAreEmpty) {
  for (const std::string blank : {" ", "\\t", " \\t ", "\\r\\n"}) {
    TempDir tmp;
    const fs::path s = write_scenario(tmp / "s", recorded(), "hand-authored",
                                      "  \"regenerationJustification\": {\"cite\": \"owner ruling\", \"rationale\": \"" +
                                          blank + "\", \"trackingIssue\": \"#1\"},\n");
    const std::string transcript = test::read_text(s / "transcript.ndjson");
    RegenRun run = regen(s, with(recorded(), 4, "\"title\":\"x\"", "\"title\":\"y\""));
    ASSERT_FALSE(run.result) << blank;
    EXPECT_FALSE(run.spawned);
    EXPECT_EQ(exit_code(run.result.error().kind), 1);
    EXPECT_EQ(run.result.error().rule, "regen.justification");
    EXPECT_NE(run.result.error().message.find("regenerationJustification.rationale"), std::string::npos)
        << run.result.error().render();
    EXPECT_EQ(test::read_text(s / "transcript.ndjson"), transcript);
  }
}

// The scenario folder spelled as tab completion writes it, as `.`, relative, through `..`, or
// through a symlink of the same name: the same folder is rewritten, nothing is left beside it.
TEST(Regen, AnySpellingOfTheScenarioFolderWorks) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded());
  fs::create_directory(tmp / "other");
  fs::create_directory_symlink(s, tmp / "other" / "s");  // the scenario under its own name elsewhere
  const fs::path cwd = fs::current_path();
  std::size_t round = 0;
  for (const auto& [from, spelled] : std::vector<std::pair<fs::path, fs::path>>{
           {cwd, fs::path(s.string() + "/")},
           {s, "."},
           {s, "./"},
           {tmp.path(), "s"},
           {tmp.path(), "s/"},
           {tmp / "other", "../s/."},
           {tmp / "other", "s/"},
           {cwd, s}}) {
    ++round;
    const std::string session = "sess-" + std::to_string(round);
    fs::current_path(from);
    RegenRun run = regen(spelled, with(recorded(), 4, "sess-A", session));
    fs::current_path(cwd);
    ASSERT_TRUE(run.result) << spelled << ": " << run.result.error().render();
    EXPECT_EQ(run.result->outcome, RegenOutcome::equivalent) << spelled << run.text;
    EXPECT_TRUE(run.result->rewritten) << spelled << run.text;
    EXPECT_FALSE(run.result->write_failure) << spelled << ": " << run.result->write_failure->render();
    EXPECT_NE(test::read_text(s / "transcript.ndjson").find(session), std::string::npos) << spelled;
    EXPECT_TRUE(fs::is_symlink(tmp / "other" / "s")) << spelled;
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(tmp.path())) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"other", "s"})) << spelled;
  }
}

}  // namespace
}  // namespace msptk::maintenance
