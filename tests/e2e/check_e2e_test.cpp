// `msptk check` end to end: the real binary over the project's corpus/ and the public corpus,
// with the embedded canned host (msptk serve-fixture) or a --host, and its reports.
#include "e2e_support.hpp"

#include <boost/property_tree/ptree.hpp>
#include <fmt/format.h>
#include <boost/property_tree/xml_parser.hpp>

#include <algorithm>
#include <regex>
#include <sstream>

namespace msptk::e2e {
namespace {

namespace fs = std::filesystem;

std::string own_corpus() { return (test::source_dir() / "corpus").string(); }

// corpus/ plus the public corpus when it is there.
std::vector<std::string> corpora() {
  std::vector<std::string> out{own_corpus()};
  if (fs::is_directory(test::shared_transcripts())) out.push_back(test::shared_transcripts().string());
  return out;
}

std::size_t scenario_count(const std::vector<std::string>& dirs) {
  std::size_t n = 0;
  for (const auto& dir : dirs)
    for (const auto& e : fs::directory_iterator(dir))
      if (fs::exists(e.path() / "manifest.json")) ++n;
  return n;
}

CommandRun check(std::vector<std::string> args, std::vector<std::string> paths = corpora()) {
  std::vector<std::string> argv{msptk_bin(), "check"};
  argv.insert(argv.end(), paths.begin(), paths.end());
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, std::chrono::seconds(240));
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::size_t count_prefix(const std::vector<std::string>& ls, const std::string& prefix) {
  return std::count_if(ls.begin(), ls.end(), [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
}

// A scenario copied into a fresh corpus folder (tests break copies, never the originals).
fs::path copy_scenario(const fs::path& into, const fs::path& scenario) {
  const fs::path to = into / scenario.filename();
  fs::create_directories(into);
  fs::copy(scenario, to, fs::copy_options::recursive);
  return to;
}

TEST(CheckE2E, EveryScenarioPassesAgainstTheCannedHost) {
  const auto paths = corpora();
  const std::size_t total = scenario_count(paths);
  const std::size_t skipped = fs::is_directory(test::shared_transcripts()) ? 2 : 0;  // the sdk-tolerance scenarios
  CommandRun run = check({});
  EXPECT_EQ(run.exit.code, 0) << run.out << run.err;
  const auto out = lines(run.out);
  ASSERT_EQ(out.size(), total + 1) << run.out;
  EXPECT_EQ(out.back(), fmt::format("{} passed, 0 failed, {} skipped", total - skipped, skipped));
  EXPECT_EQ(count_prefix(out, "PASS "), total - skipped);
  EXPECT_EQ(count_prefix(out, "SKIP "), skipped);
  if (skipped) {
    EXPECT_NE(run.out.find("SKIP transcripts/tolerance-unknown-item-kind: sdk-tolerance scenario"), std::string::npos);
  }
  EXPECT_EQ(out.front(), "PASS corpus/framing-cr-terminated-client-frames");
  EXPECT_EQ(run.err, "");  // no TTY: no progress; the hosts' stderr does not leak
}

TEST(CheckE2E, JobsKeepTheOutputInCorpusOrder) {
  CommandRun one = check({"--jobs", "1"});
  CommandRun two = check({"--jobs", "2"});
  EXPECT_EQ(two.exit.code, one.exit.code);
  EXPECT_EQ(two.out, one.out);
}

TEST(CheckE2E, WritesWellFormedJUnitAndJsonReports) {
  test::TempDir tmp;
  CommandRun run = check({"--junit", (tmp / "check.xml").string(), "--json", (tmp / "check.json").string()});
  ASSERT_EQ(run.exit.code, 0) << run.err;
  const std::size_t total = scenario_count(corpora());

  namespace pt = boost::property_tree;
  pt::ptree xml;
  ASSERT_NO_THROW(pt::read_xml((tmp / "check.xml").string(), xml));
  EXPECT_EQ(xml.get<std::size_t>("testsuites.<xmlattr>.tests"), total);
  EXPECT_EQ(xml.get<int>("testsuites.<xmlattr>.failures"), 0);
  std::size_t cases = 0;
  for (const auto& [tag, suite] : xml.get_child("testsuites"))
    if (tag == "testsuite")
      for (const auto& [case_tag, testcase] : suite)
        if (case_tag == "testcase") {
          ++cases;
          EXPECT_EQ(testcase.get<std::string>("<xmlattr>.classname"), suite.get<std::string>("<xmlattr>.name"));
        }
  EXPECT_EQ(cases, total);

  const auto json = read_json_object(tmp / "check.json");
  EXPECT_EQ(json.at("kind"), "msptkCheck");
  EXPECT_EQ(json.at("exitCode"), 0);
  const auto& scenarios = json.at("scenarios").as_array();
  ASSERT_EQ(scenarios.size(), total);
  for (const auto& s : scenarios) {
    if (s.at("status") == "skip") {
      EXPECT_TRUE(s.at("replay").is_null());
      continue;
    }
    EXPECT_EQ(s.at("status"), "pass") << s;
    EXPECT_EQ(s.at("replay").at("exitCode"), 0) << s;
    EXPECT_NE(s.at("diff").at("verdict"), "divergent") << s;
  }
}

TEST(CheckE2E, KeepKeepsEveryRecording) {
  test::TempDir tmp;
  const fs::path keep = tmp / "kept";
  CommandRun run = check({"--keep", keep.string()}, {own_corpus()});
  ASSERT_EQ(run.exit.code, 0) << run.out << run.err;
  for (const auto& e : fs::directory_iterator(own_corpus())) {
    if (!fs::exists(e.path() / "manifest.json")) continue;
    const fs::path recording = keep / "corpus" / e.path().filename() / "transcript.ndjson";
    ASSERT_TRUE(fs::exists(recording)) << recording;
    // The recording is what the golden scenario says, up to what the client mints.
    CommandRun diff = run_command({msptk_bin(), "diff", e.path().string(), recording.string()});
    EXPECT_EQ(diff.exit.code, 0) << diff.out;
  }
  CommandRun again = check({"--keep", keep.string()}, {own_corpus()});
  EXPECT_EQ(again.exit.code, 2);
  EXPECT_NE(again.err.find("not an empty folder"), std::string::npos) << again.err;
}

TEST(CheckE2E, AHostThatFailsFailsEveryReplayedScenario) {
  CommandRun run = check({"--host", "false"}, {own_corpus()});
  EXPECT_EQ(run.exit.code, 1) << run.out << run.err;
  const auto out = lines(run.out);
  const std::size_t total = scenario_count({own_corpus()});
  EXPECT_EQ(count_prefix(out, "FAIL "), total) << run.out;
  EXPECT_EQ(out.back(), fmt::format("0 passed, {} failed, 0 skipped", total));
}

TEST(CheckE2E, AHostThatDiesSaysWhatItReportedOnTheFailLine) {
  test::TempDir tmp;
  const fs::path corpus = tmp / "c";
  copy_scenario(corpus, test::source_dir() / "corpus" / "framing-cr-terminated-client-frames");
  CommandRun run = check({"--host", "sh -c 'echo starting >&2; echo \"fatal: no model configured\" >&2; echo >&2; exit 4'",
                          "--junit", (tmp / "check.xml").string()},
                         {corpus.string()});
  EXPECT_EQ(run.exit.code, 1) << run.out << run.err;
  const auto out = lines(run.out);
  ASSERT_FALSE(out.empty()) << run.err;
  EXPECT_EQ(out.front().rfind("FAIL c/framing-cr-terminated-client-frames: ", 0), 0u) << run.out;
  EXPECT_NE(out.front().find("the host exited with code 4"), std::string::npos) << run.out;
  EXPECT_NE(out.front().find("; the host's stderr ends: fatal: no model configured"), std::string::npos) << run.out;
  namespace pt = boost::property_tree;
  pt::ptree xml;
  ASSERT_NO_THROW(pt::read_xml((tmp / "check.xml").string(), xml));
  EXPECT_EQ(xml.get<std::string>("testsuites.testsuite.testcase.failure.<xmlattr>.type"), "error");
}

TEST(CheckE2E, AHostThatCannotBeSpawnedIsAnInfrastructureError) {
  CommandRun run = check({"--host", "'no such msptk host' serve"}, {own_corpus()});
  EXPECT_EQ(run.exit.code, 3);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find("msptk: error: cannot spawn 'no such msptk host'"), std::string::npos) << run.err;
}

TEST(CheckE2E, AScenarioThatCannotBeCheckedIsAnError) {
  test::TempDir tmp;
  const fs::path corpus = tmp / "c";
  copy_scenario(corpus, test::source_dir() / "corpus" / "framing-malformed-json");
  const fs::path bare = copy_scenario(corpus, test::source_dir() / "corpus" / "framing-missing-jsonrpc-version");
  fs::remove(bare / "transcript.ndjson");
  CommandRun run = check({}, {corpus.string()});
  EXPECT_EQ(run.exit.code, 3) << run.out << run.err;
  const auto out = lines(run.out);
  ASSERT_EQ(out.size(), 3u) << run.out;
  EXPECT_EQ(out[0], "PASS c/framing-malformed-json");
  EXPECT_EQ(out[1], "ERROR c/framing-missing-jsonrpc-version: " + (bare / "transcript.ndjson").string() +
                        ": scenario folder has no transcript.ndjson");
  EXPECT_EQ(out[2], "1 passed, 0 failed, 0 skipped, 1 error");

  // A host whose path depends on the scenario is spawned per scenario: each failure is an ERROR.
  run = check({"--host", "{scenario}/no-such-host"}, {corpus.string()});
  EXPECT_EQ(run.exit.code, 3);
  EXPECT_NE(run.out.find("ERROR c/framing-malformed-json: cannot spawn '" + (corpus / "framing-malformed-json").string() +
                         "/no-such-host'"),
            std::string::npos)
      << run.out;
}

TEST(CheckE2E, HostPlaceholderRunsTheGivenCommandPerScenario) {
  CommandRun canned = check({}, {own_corpus()});
  CommandRun given = check({"--host", fmt::format("'{}' serve-fixture --transcript {{scenario}}", msptk_bin())}, {own_corpus()});
  EXPECT_EQ(given.exit.code, 0) << given.out << given.err;
  EXPECT_EQ(given.out, canned.out);
}

TEST(CheckE2E, ABrokenScenarioFailsWithItsFirstDivergence) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  test::TempDir tmp;
  const fs::path original = test::shared_transcripts() / "goal-set-round-trip";
  const fs::path copy = copy_scenario(tmp / "broken", original);
  // The golden copy says the server answered differently than the host (which plays the
  // original) will: the second line of the copy.
  std::string transcript = test::read_text(copy / "transcript.ndjson");
  const std::size_t at = transcript.find("\"dir\":\"server\"");
  ASSERT_NE(at, std::string::npos);
  const std::string version = R"(\"jsonrpc\":\"2.0\")";
  const std::size_t at_version = transcript.find(version, at);
  ASSERT_NE(at_version, std::string::npos);
  transcript.insert(at_version + version.size(), R"(,\"extra\":1)");
  test::write_text(copy / "transcript.ndjson", transcript);

  CommandRun run = check({"--host", fmt::format("'{}' serve-fixture --transcript '{}'", msptk_bin(), original.string())},
                         {(tmp / "broken").string()});
  EXPECT_EQ(run.exit.code, 1) << run.out << run.err;
  const auto out = lines(run.out);
  ASSERT_EQ(out.size(), 2u) << run.out;
  EXPECT_TRUE(std::regex_search(out[0], std::regex(R"(^FAIL broken/goal-set-round-trip: .*transcript\.ndjson:\d+: .*extra)")))
      << out[0];
  EXPECT_EQ(out[1], "0 passed, 1 failed, 0 skipped");

  // A copy that no longer validates fails on the validation error, without a replay.
  test::write_text(copy / "transcript.ndjson", "{\"dir\":\"client\",\"raw\":\"not json\"}\n" + transcript);
  run = check({}, {(tmp / "broken").string()});
  EXPECT_EQ(run.exit.code, 1);
  EXPECT_NE(run.out.find("FAIL broken/goal-set-round-trip: " + (copy / "transcript.ndjson").string() + ":1: error:"),
            std::string::npos)
      << run.out;
}

TEST(CheckE2E, ShardsMergeIntoTheFullRun) {
  test::TempDir tmp;
  CommandRun full = check({});
  CommandRun first = check({"--shard", "1/2", "--json", (tmp / "1.json").string()});
  CommandRun second = check({"--shard", "2/2", "--json", (tmp / "2.json").string()});
  ASSERT_EQ(first.exit.code, 0) << first.err;
  ASSERT_EQ(second.exit.code, 0) << second.err;
  EXPECT_LT(lines(first.out).size(), lines(full.out).size());
  CommandRun merged = run_command({msptk_bin(), "check", "--merge-reports", (tmp / "2.json").string(),
                                   (tmp / "1.json").string(), "--junit", (tmp / "all.xml").string(), "--json",
                                   (tmp / "all.json").string()});
  EXPECT_EQ(merged.exit.code, 0) << merged.err;
  EXPECT_EQ(merged.out, full.out);
  EXPECT_EQ(read_json_object(tmp / "all.json").at("scenarios").as_array().size(), scenario_count(corpora()));
  EXPECT_TRUE(fs::exists(tmp / "all.xml"));

  CommandRun incomplete = run_command({msptk_bin(), "check", "--merge-reports", (tmp / "2.json").string()});
  EXPECT_EQ(incomplete.exit.code, 3);
  EXPECT_NE(incomplete.err.find("lack shard 1/2"), std::string::npos) << incomplete.err;
}

}  // namespace
}  // namespace msptk::e2e
