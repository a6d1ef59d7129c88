// Unit tests of the check module with a fake ScenarioRunner: no process is spawned. The real
// runner (validate + replay + diff) is covered end to end in tests/e2e/check_e2e_test.cpp.
#include "msptk/check/baseline.hpp"
#include "msptk/check/host_command.hpp"
#include "msptk/check/junit.hpp"
#include "msptk/check/plan.hpp"
#include "msptk/check/render.hpp"
#include "msptk/check/report_json.hpp"
#include "msptk/check/runner.hpp"
#include "test_support.hpp"

#include <boost/json.hpp>
#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include <atomic>
#include <chrono>
#include <fmt/format.h>

#include <map>
#include <numeric>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

namespace msptk::check {
namespace {

namespace fs = std::filesystem;

// A corpus folder with these scenario folders (each with a manifest.json, which is all the
// plan looks at).
fs::path make_corpus(const fs::path& root, const std::string& name, const std::vector<std::string>& scenarios) {
  const fs::path corpus = root / name;
  for (const std::string& s : scenarios) {
    fs::create_directories(corpus / s);
    test::write_text(corpus / s / "manifest.json", "{}");
  }
  return corpus;
}

// Scripted outcomes by scenario name (default: pass), with a delay that makes later scenarios
// finish first, and a count of how many run at once.
class FakeRunner : public ScenarioRunner {
 public:
  std::map<std::string, Status> status;
  std::set<std::string> throws;
  bool reverse_delays = true;
  std::atomic<int> running{0}, max_running{0};
  std::mutex mutex;
  std::vector<std::string> started;

  ScenarioOutcome run(const ScenarioTask& task) override {
    {
      std::lock_guard lock(mutex);
      started.push_back(task.id());
    }
    const int now = ++running;
    for (int seen = max_running; now > seen && !max_running.compare_exchange_weak(seen, now);) {
    }
    if (reverse_delays) std::this_thread::sleep_for(std::chrono::milliseconds(2 * (20 - static_cast<int>(task.index % 20))));
    --running;
    if (throws.count(task.scenario)) throw std::runtime_error("boom");
    ScenarioOutcome o;
    o.status = status.count(task.scenario) ? status[task.scenario] : Status::pass;
    if (o.status != Status::pass) o.reason = "golden/transcript.ndjson:3: divergent server response to x at result.y: 1 → 2";
    o.validation.push_back(Finding{Severity::warning, task.dir.string() + "/manifest.json", 1, "manifest.fingerprint", "stale"});
    return o;
  }
};

std::vector<ScenarioTask> tasks_named(std::size_t n) {
  std::vector<ScenarioTask> tasks;
  for (std::size_t i = 0; i < n; ++i)
    tasks.push_back(ScenarioTask{"c", fmt::format("s{:02}", i), fs::path("c") / fmt::format("s{:02}", i), i, false});
  return tasks;
}

// ---- plan ----

TEST(CheckPlan, CollectsCorporaInArgumentOrderAndScenariosSorted) {
  test::TempDir tmp;
  const fs::path a = make_corpus(tmp.path(), "alpha", {"zeta", "beta"});
  const fs::path b = make_corpus(tmp.path(), "bravo", {"one"});
  auto tasks = collect_scenarios({b, a / "zeta", a});  // zeta reached twice: checked once, first place
  ASSERT_TRUE(tasks) << tasks.error().render();
  ASSERT_EQ(tasks->size(), 3u);
  EXPECT_EQ((*tasks)[0].id(), "bravo/one");
  EXPECT_EQ((*tasks)[1].id(), "alpha/zeta");
  EXPECT_EQ((*tasks)[2].id(), "alpha/beta");
  for (std::size_t i = 0; i < tasks->size(); ++i) EXPECT_EQ((*tasks)[i].index, i);
  auto trailing = collect_scenarios({a.string() + "/"});
  ASSERT_TRUE(trailing);
  EXPECT_EQ(trailing->front().corpus, "alpha");
}

TEST(CheckPlan, RefusesMissingPathsFilesAndEmptyFolders) {
  test::TempDir tmp;
  auto missing = collect_scenarios({tmp / "nope"});
  ASSERT_FALSE(missing);
  EXPECT_EQ(exit_code(missing.error().kind), 3);
  test::write_text(tmp / "file.ndjson", "");
  auto file = collect_scenarios({tmp / "file.ndjson"});
  ASSERT_FALSE(file);
  EXPECT_EQ(exit_code(file.error().kind), 2);
  fs::create_directories(tmp / "empty");
  auto empty = collect_scenarios({tmp / "empty"});
  ASSERT_FALSE(empty);
  EXPECT_EQ(exit_code(empty.error().kind), 3);
}

TEST(CheckShard, ParsesKOverN) {
  auto shard = parse_shard("2/4");
  ASSERT_TRUE(shard);
  EXPECT_EQ(shard->index, 2u);
  EXPECT_EQ(shard->count, 4u);
  EXPECT_EQ(shard->str(), "2/4");
  for (const char* bad : {"", "2", "0/4", "5/4", "a/4", "2/", "/4", "2/4x", "-1/4", "1/0"}) {
    auto parsed = parse_shard(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_EQ(parsed.error().kind, ErrorKind::usage);
  }
}

TEST(CheckShard, ShardsPartitionTheRunExactly) {
  for (std::size_t total : {0u, 1u, 7u, 37u, 43u}) {
    const auto tasks = tasks_named(total);
    for (std::size_t n = 1; n <= 6; ++n) {
      std::vector<std::size_t> seen;
      for (std::size_t k = 1; k <= n; ++k) {
        const auto slice = select_shard(tasks, Shard{k, n});
        EXPECT_LE(slice.size(), (total + n - 1) / n);
        EXPECT_GE(slice.size(), total / n);
        EXPECT_EQ(select_shard(tasks, Shard{k, n}).size(), slice.size());  // deterministic
        for (std::size_t i = 1; i < slice.size(); ++i) EXPECT_LT(slice[i - 1].index, slice[i].index);
        for (const auto& t : slice) seen.push_back(t.index);
      }
      std::sort(seen.begin(), seen.end());
      std::vector<std::size_t> all(total);
      std::iota(all.begin(), all.end(), 0);
      EXPECT_EQ(seen, all) << total << " scenarios in " << n << " shards";
    }
  }
}

// ---- scheduler ----

TEST(CheckRunner, ReportsInCorpusOrderWhateverTheJobs) {
  const auto tasks = tasks_named(12);
  for (unsigned jobs : {1u, 2u, 4u, 16u}) {
    FakeRunner runner;
    runner.status["s03"] = Status::fail;
    std::vector<std::size_t> order;
    std::size_t last_done = 0, progress_calls = 0;
    RunObserver observer;
    observer.on_result = [&](const ScenarioOutcome& o) { order.push_back(o.index); };
    observer.on_progress = [&](std::size_t done, std::size_t total, const std::vector<const ScenarioTask*>& running) {
      EXPECT_GT(done, last_done);
      EXPECT_EQ(total, 12u);
      EXPECT_LE(running.size(), jobs);
      last_done = done;
      ++progress_calls;
    };
    const auto outcomes = run_scenarios(tasks, runner, jobs, observer);
    ASSERT_EQ(outcomes.size(), 12u);
    for (std::size_t i = 0; i < 12; ++i) {
      EXPECT_EQ(order[i], i) << "jobs " << jobs;
      EXPECT_EQ(outcomes[i].index, i);
      EXPECT_EQ(outcomes[i].id(), tasks[i].id());
      EXPECT_EQ(outcomes[i].path, tasks[i].dir.string());
      EXPECT_EQ(outcomes[i].status, i == 3 ? Status::fail : Status::pass);
      EXPECT_GT(outcomes[i].duration_ms, 0.0);
    }
    EXPECT_EQ(last_done, 12u);
    EXPECT_GE(progress_calls, 1u);  // completions close together are reported together
    EXPECT_LE(progress_calls, 12u);
    EXPECT_LE(runner.max_running, static_cast<int>(jobs));
    if (jobs > 1) {
      EXPECT_GT(runner.max_running, 1) << "jobs " << jobs << " never ran two scenarios at once";
    }
    // Workers take tasks in run order.
    if (jobs == 1) {
      EXPECT_EQ(runner.started, std::vector<std::string>({"c/s00", "c/s01", "c/s02", "c/s03", "c/s04", "c/s05", "c/s06",
                                                          "c/s07", "c/s08", "c/s09", "c/s10", "c/s11"}));
    }
  }
}

TEST(CheckRunner, AnExceptionBecomesAnErrorOutcome) {
  FakeRunner runner;
  runner.throws.insert("s01");
  const auto outcomes = run_scenarios(tasks_named(3), runner, 2);
  EXPECT_EQ(outcomes[1].status, Status::error);
  EXPECT_EQ(outcomes[1].reason, "internal error: boom");
  EXPECT_EQ(outcomes[2].status, Status::pass);
}

TEST(CheckRunner, NoTasksNoThreads) {
  FakeRunner runner;
  std::size_t started = 99;
  RunObserver observer;
  observer.on_start = [&](std::size_t total) { started = total; };
  EXPECT_TRUE(run_scenarios({}, runner, 4, observer).empty());
  EXPECT_EQ(started, 0u);
}

// ---- baseline ----

TEST(CheckBaseline, ParsesIdsAndComments) {
  auto baseline = Baseline::parse("# known\n\n  c/s01  # bug 12\ns02\r\nother/s03\n#x\n", "base.txt");
  ASSERT_TRUE(baseline) << baseline.error().render();
  ASSERT_EQ(baseline->entries().size(), 3u);
  EXPECT_EQ(baseline->entries()[0].id, "c/s01");
  EXPECT_EQ(baseline->entries()[0].line, 3u);
  const auto tasks = tasks_named(4);
  EXPECT_FALSE(baseline->lists(tasks[0]));
  EXPECT_TRUE(baseline->lists(tasks[1]));
  EXPECT_TRUE(baseline->lists(tasks[2]));  // bare name: any corpus
  EXPECT_FALSE(baseline->lists(tasks[3]));  // other corpus
  EXPECT_EQ(baseline->unmatched(tasks),
            std::vector<std::string>{"base.txt:5: baseline entry \"other/s03\" names no scenario of this run"});
}

TEST(CheckBaseline, RefusesMalformedEntriesWithFileAndLine) {
  for (const char* text : {"a b\n", "a/b/c\n", "/b\n", "a/\n"}) {
    auto baseline = Baseline::parse(std::string("ok\n") + text, "base.txt");
    ASSERT_FALSE(baseline) << text;
    EXPECT_EQ(baseline.error().file, "base.txt");
    EXPECT_EQ(baseline.error().line, 2u);
    EXPECT_EQ(baseline.error().rule, "baseline.entry");
  }
  auto missing = Baseline::read("/nonexistent/baseline.txt");
  ASSERT_FALSE(missing);
  EXPECT_EQ(exit_code(missing.error().kind), 3);
}

TEST(CheckBaseline, ExpectedFailuresDoNotFailTheRunAndPassesAreStale) {
  test::TempDir tmp;
  const fs::path corpus = make_corpus(tmp.path(), "c", {"a", "b", "c", "d"});
  FakeRunner runner;
  runner.status = {{"a", Status::fail}, {"c", Status::fail}, {"d", Status::skip}};
  CheckOptions options;
  options.corpora = {corpus};
  options.baseline = *Baseline::parse("a\nc/b\nc/d\nc/gone\n", "base.txt");
  auto report = run_check(options, runner);
  ASSERT_TRUE(report);
  const CheckSummary s = report->summary();
  EXPECT_EQ(s.passed, 1u);             // b (stale)
  EXPECT_EQ(s.failed, 1u);             // c
  EXPECT_EQ(s.expected_failures, 1u);  // a
  EXPECT_EQ(s.skipped, 1u);            // d (stale)
  EXPECT_EQ(s.stale, 2u);
  EXPECT_EQ(report->exit_code(), 1);
  EXPECT_EQ(summary_line(s), "1 passed, 1 failed, 1 skipped, 1 expected failure, 2 stale baseline entries");
  EXPECT_EQ(result_line(report->scenarios[0]),
            "XFAIL c/a: golden/transcript.ndjson:3: divergent server response to x at result.y: 1 → 2 "
            "(expected: listed in the baseline)");
  EXPECT_EQ(result_line(report->scenarios[1]),
            "PASS c/b (stale baseline entry: it no longer fails, remove it from the baseline)");
  EXPECT_EQ(result_line(report->scenarios[2]),
            "FAIL c/c: golden/transcript.ndjson:3: divergent server response to x at result.y: 1 → 2");
  EXPECT_EQ(report->warnings, std::vector<std::string>{"base.txt:4: baseline entry \"c/gone\" names no scenario of this run"});

  options.baseline = *Baseline::parse("a\nc\n", "base.txt");
  report = run_check(options, runner);
  EXPECT_EQ(report->exit_code(), 0);
  runner.status["b"] = Status::error;
  report = run_check(options, runner);
  EXPECT_EQ(report->exit_code(), 3);
  EXPECT_EQ(summary_line(report->summary()), "0 passed, 0 failed, 1 skipped, 1 error, 2 expected failures");
}

// ---- host command ----

TEST(CheckHost, SplitsLikeAShellWithoutOne) {
  using V = std::vector<std::string>;
  EXPECT_EQ(*split_command("muse serve"), (V{"muse", "serve"}));
  EXPECT_EQ(*split_command("  a\t 'b c'  \"d \\\"e\\\" $HOME\" f\\ g ''"), (V{"a", "b c", "d \"e\" $HOME", "f g", ""}));
  EXPECT_EQ(*split_command("x'y'\"z\"w"), (V{"xyzw"}));
  EXPECT_EQ(*split_command("'a\\b' \"c\\d\""), (V{"a\\b", "c\\d"}));
  for (const char* bad : {"", "   ", "'open", "\"open", "trailing\\"}) {
    auto words = split_command(bad);
    ASSERT_FALSE(words) << bad;
    EXPECT_EQ(words.error().kind, ErrorKind::usage);
  }
  EXPECT_EQ(expand_scenario({"h", "--t={scenario}/transcript.ndjson", "{scenario}{scenario}"}, "c/s"),
            (V{"h", "--t=c/s/transcript.ndjson", "c/sc/s"}));
  EXPECT_EQ(canned_host_argv("/bin/msptk", "c/s"), (V{"/bin/msptk", "serve-fixture", "--transcript", "c/s"}));
}

// ---- reports ----

CheckReport sample_report() {
  CheckReport report;
  report.host = "muse serve";
  report.corpora = {"corpus", "more"};
  report.total_scenarios = 6;
  report.duration_ms = 1234.5;
  report.warnings = {"base.txt:2: baseline entry \"x\" names no scenario of this run"};
  auto add = [&](std::string corpus, std::string name, Status status, std::string reason, bool baseline = false) {
    ScenarioOutcome o;
    o.corpus = std::move(corpus), o.scenario = std::move(name), o.status = status, o.reason = std::move(reason);
    o.path = o.corpus + "/" + o.scenario, o.index = report.scenarios.size(), o.in_baseline = baseline;
    o.duration_ms = 10.25 * static_cast<double>(o.index + 1);
    report.scenarios.push_back(std::move(o));
  };
  add("corpus", "ok", Status::pass, "");
  add("corpus", "bad <&> \"q\" 'a'", Status::fail, "t.ndjson:7: divergent at a.b: \"<x>\" → \"&y\"\nsecond\tline\x01");
  add("corpus", "tol", Status::skip, "sdk-tolerance scenario");
  add("more", "host", Status::error, "cannot spawn 'nope': not found in PATH");
  add("more", "known", Status::fail, "t.ndjson:2: missing x", true);
  add("more", "fixed", Status::pass, "", true);
  report.scenarios[1].details = "divergent client request x\n  a.b: \"<x>\" → \"&y\"\n\xff bad utf8\n";
  report.scenarios[1].validation.push_back(Finding{Severity::error, "f", 3, "frame.jsonrpc", "no jsonrpc"});
  report.scenarios[1].diff = boost::json::parse(R"({"kind":"msptkDiff","verdict":"divergent","comparisons":[]})");
  report.scenarios[1].replay = boost::json::parse(R"({"exitCode":1,"problem":"p","hostExit":null,"report":{}})");
  report.scenarios[0].recording = "keep/corpus/ok";
  return report;
}

TEST(CheckJUnit, EscapesEverythingXmlCannotCarry) {
  EXPECT_EQ(xml_escape("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;");
  EXPECT_EQ(xml_escape("l1\nl2\tx\ry"), "l1&#10;l2&#9;x&#13;y");
  EXPECT_EQ(xml_escape("l1\nl2\tx\ry", false), "l1\nl2\tx&#13;y");
  EXPECT_EQ(xml_escape(std::string("nul\0bell\x07", 9)), "nul\xEF\xBF\xBD" "bell\xEF\xBF\xBD");
  EXPECT_EQ(xml_escape("bad \xff\xc3 end"), "bad \xEF\xBF\xBD\xEF\xBF\xBD end");
  EXPECT_EQ(xml_escape("overlong \xc0\xaf surrogate \xed\xa0\x80"),
            "overlong \xEF\xBF\xBD\xEF\xBF\xBD surrogate \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(xml_escape("→ é 😀"), "→ é 😀");
}

TEST(CheckJUnit, OneTestcasePerScenarioInAWellFormedDocument) {
  std::ostringstream xml;
  render_junit(xml, sample_report());
  namespace pt = boost::property_tree;
  pt::ptree tree;
  std::istringstream in(xml.str());
  ASSERT_NO_THROW(pt::read_xml(in, tree)) << xml.str();
  const pt::ptree& suites = tree.get_child("testsuites");
  EXPECT_EQ(suites.get<int>("<xmlattr>.tests"), 6);
  EXPECT_EQ(suites.get<int>("<xmlattr>.failures"), 1);
  EXPECT_EQ(suites.get<int>("<xmlattr>.errors"), 1);
  EXPECT_EQ(suites.get<int>("<xmlattr>.skipped"), 2);  // tol + the expected failure
  std::vector<std::pair<std::string, std::string>> cases;  // classname, name
  std::map<std::string, const pt::ptree*> by_name;
  for (const auto& [tag, suite] : suites) {
    if (tag != "testsuite") continue;
    for (const auto& [case_tag, testcase] : suite) {
      if (case_tag != "testcase") continue;
      cases.emplace_back(testcase.get<std::string>("<xmlattr>.classname"), testcase.get<std::string>("<xmlattr>.name"));
      EXPECT_EQ(cases.back().first, suite.get<std::string>("<xmlattr>.name"));
      by_name[cases.back().second] = &testcase;
    }
  }
  ASSERT_EQ(cases.size(), 6u);
  EXPECT_EQ(cases[1], (std::pair<std::string, std::string>{"corpus", "bad <&> \"q\" 'a'"}));
  const pt::ptree& bad = *by_name["bad <&> \"q\" 'a'"];
  EXPECT_EQ(bad.get<std::string>("failure.<xmlattr>.message"),
            "t.ndjson:7: divergent at a.b: \"<x>\" → \"&y\"\nsecond\tline\xEF\xBF\xBD");
  EXPECT_EQ(bad.get<std::string>("failure"), "divergent client request x\n  a.b: \"<x>\" → \"&y\"\n\xEF\xBF\xBD bad utf8\n");
  EXPECT_EQ(by_name["tol"]->get<std::string>("skipped.<xmlattr>.message"), "sdk-tolerance scenario");
  EXPECT_EQ(by_name["host"]->get<std::string>("error.<xmlattr>.message"), "cannot spawn 'nope': not found in PATH");
  EXPECT_EQ(by_name["known"]->get<std::string>("skipped.<xmlattr>.message"), "expected failure (baseline): t.ndjson:2: missing x");
  EXPECT_NE(by_name["fixed"]->get<std::string>("system-out").find("stale baseline entry"), std::string::npos);
  EXPECT_FALSE(by_name["ok"]->get_child_optional("failure"));
}

TEST(CheckJUnit, AFailureCarriesTheTypeOfItsCause) {
  CheckReport report;
  auto add = [&](std::string name, boost::json::value replay, bool invalid) {
    ScenarioOutcome o;
    o.corpus = "c", o.scenario = std::move(name), o.status = Status::fail, o.reason = "why";
    o.replay = std::move(replay);
    if (invalid) o.validation.push_back(Finding{Severity::error, "f", 3, "frame.jsonrpc", "no jsonrpc"});
    o.validation.push_back(Finding{Severity::warning, "f", 4, "manifest.x", "a warning decides nothing"});
    report.scenarios.push_back(std::move(o));
  };
  add("invalid", nullptr, true);
  add("differs", boost::json::parse(R"({"exitCode":1,"problem":"p","hostExit":null})"), false);
  add("died", boost::json::parse(R"({"exitCode":3,"problem":"p","hostExit":{"code":4,"signal":0}})"), false);
  std::ostringstream xml;
  render_junit(xml, report);
  namespace pt = boost::property_tree;
  pt::ptree tree;
  std::istringstream in(xml.str());
  ASSERT_NO_THROW(pt::read_xml(in, tree)) << xml.str();
  std::map<std::string, std::string> types;
  for (const auto& [tag, testcase] : tree.get_child("testsuites.testsuite"))
    if (tag == "testcase")
      types[testcase.get<std::string>("<xmlattr>.name")] = testcase.get<std::string>("failure.<xmlattr>.type");
  EXPECT_EQ(types["invalid"], "validation");
  EXPECT_EQ(types["differs"], "divergence");
  EXPECT_EQ(types["died"], "error");
}

TEST(CheckJson, AReportReadBackIsTheReportWritten) {
  const CheckReport report = sample_report();
  const boost::json::value written = to_json(report);
  auto read = report_from_json(written, "r.json");
  ASSERT_TRUE(read) << read.error().render();
  EXPECT_EQ(to_json(*read), written);
  EXPECT_EQ(read->scenarios[1].validation.front().rule, "frame.jsonrpc");
  EXPECT_EQ(written.at("exitCode").as_int64(), 3);
  EXPECT_EQ(written.at("summary").at("expectedFailures").as_uint64(), 1u);

  std::ostringstream text;
  render_json(text, report);
  auto reparsed = report_from_json(boost::json::parse(text.str()), "r.json");
  ASSERT_TRUE(reparsed);
  EXPECT_EQ(to_json(*reparsed), written);

  auto not_a_report = report_from_json(boost::json::parse(R"({"kind":"msptkDiff"})"), "d.json");
  ASSERT_FALSE(not_a_report);
  EXPECT_EQ(not_a_report.error().file, "d.json");
  boost::json::value broken = written;
  broken.at("scenarios").as_array()[2].as_object()["status"] = "maybe";
  auto bad_status = report_from_json(broken, "r.json");
  ASSERT_FALSE(bad_status);
  EXPECT_NE(bad_status.error().message.find("scenarios[2].status"), std::string::npos) << bad_status.error().message;
}

// The JSON of a report with its timings zeroed (they differ from run to run).
boost::json::value timeless(CheckReport report) {
  report.duration_ms = 0;
  for (auto& o : report.scenarios) o.duration_ms = 0;
  return to_json(report);
}

TEST(CheckJson, MergedShardsAreTheFullRun) {
  test::TempDir tmp;
  const fs::path one = make_corpus(tmp.path(), "one", {"a", "b", "c", "d", "e"});
  const fs::path two = make_corpus(tmp.path(), "two", {"f", "g"});
  FakeRunner runner;
  runner.reverse_delays = false;
  runner.status = {{"b", Status::fail}, {"g", Status::skip}, {"e", Status::fail}};
  CheckOptions options;
  options.corpora = {one, two};
  options.host = "h";
  options.baseline = *Baseline::parse("e\nnowhere\n", "base.txt");
  auto full = run_check(options, runner);
  ASSERT_TRUE(full);

  std::vector<CheckReport> shards;
  std::vector<std::string> files;
  for (std::size_t k : {3u, 1u, 2u}) {  // any order
    options.shard = Shard{k, 3};
    auto shard = run_check(options, runner);
    ASSERT_TRUE(shard);
    EXPECT_EQ(shard->total_scenarios, 7u);
    const fs::path file = tmp / fmt::format("shard{}.json", k);
    std::ostringstream text;
    render_json(text, *shard);
    test::write_text(file, text.str());
    auto read = read_report(file);
    ASSERT_TRUE(read) << read.error().render();
    shards.push_back(std::move(*read));
    files.push_back(file.string());
  }
  auto merged = merge_reports(shards, files);
  ASSERT_TRUE(merged) << merged.error().render();
  EXPECT_EQ(timeless(*merged), timeless(*full));
  EXPECT_EQ(merged->exit_code(), 1);

  auto missing = merge_reports({shards[0], shards[1]}, {files[0], files[1]});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("lack shard 2/3"), std::string::npos) << missing.error().message;
  auto twice = merge_reports({shards[0], shards[1], shards[2], shards[0]}, {files[0], files[1], files[2], "again.json"});
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message.find("given twice"), std::string::npos) << twice.error().message;
  auto mixed = merge_reports({shards[0], *full}, {files[0], "full.json"});
  ASSERT_FALSE(mixed);
  EXPECT_EQ(mixed.error().file, "full.json");

  // Whole runs concatenate.
  options.shard.reset();
  options.corpora = {two};
  auto second = run_check(options, runner);
  options.corpora = {one};
  auto first = run_check(options, runner);
  auto joined = merge_reports({*first, *second}, {"1.json", "2.json"});
  ASSERT_TRUE(joined);
  ASSERT_EQ(joined->scenarios.size(), 7u);
  EXPECT_EQ(joined->scenarios.back().id(), "two/g");
  EXPECT_EQ(joined->scenarios.back().index, 6u);
  EXPECT_EQ(joined->corpora.size(), 2u);
}

// ---- first divergence ----

TEST(CheckRender, FirstDivergenceNamesFileLineAndPath) {
  auto frame = [](Direction dir, std::string raw, std::size_t line) {
    Frame f;
    f.dir = dir, f.raw = std::move(raw), f.line = line;
    return f;
  };
  const std::vector<Frame> golden = {
      frame(Direction::client, R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})", 1),
      frame(Direction::server, R"({"jsonrpc":"2.0","id":1,"result":{"status":"accepted"}})", 2)};
  std::vector<Frame> actual = golden;
  actual[1].raw = R"({"jsonrpc":"2.0","id":1,"result":{"status":"rejected"}})";
  auto spec = make_mask_spec(Registry::builtin(), {}, "", 0, {}, MaskMode::unify);
  ASSERT_TRUE(spec);
  DiffReport report;
  report.comparisons.push_back(diff_frames(golden, actual, DiffOptions{*spec}, "g/transcript.ndjson", "r/transcript.ndjson"));
  EXPECT_EQ(first_divergence(report),
            "g/transcript.ndjson:2: divergent server response to initialize at result.status: \"accepted\" → \"rejected\"");
  actual.pop_back();
  report.comparisons[0] = diff_frames(golden, actual, DiffOptions{*spec}, "g/transcript.ndjson", "r/transcript.ndjson");
  EXPECT_EQ(first_divergence(report),
            "g/transcript.ndjson:2: missing server response to initialize (not in the recording)");
  report.comparisons[0] = diff_frames(golden, golden, DiffOptions{*spec}, "g/transcript.ndjson", "r/transcript.ndjson");
  EXPECT_EQ(first_divergence(report), std::nullopt);
}

}  // namespace
}  // namespace msptk::check
