// The HTML pages of `msptk show --format html`, `msptk diff --format html` and `msptk check
// --html` loaded in headless Chromium (browser_support.hpp): the DOM the browser built holds the
// expected rows and highlighted places, and the page's script ran to its end without an error.
// Each test also takes a screenshot (MSPTK_SCREENSHOT_DIR keeps it: docs/img/). Skipped, with the
// reason, where Chromium is not installed.
#include "browser_support.hpp"

#include <fmt/format.h>

#include <regex>

namespace msptk::e2e {
namespace {

namespace fs = std::filesystem;

fs::path show_fixture() { return test::source_dir() / "tests/golden/show/session"; }

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

#define REQUIRE_CHROMIUM(chromium)                                                                           \
  const std::string chromium = find_chromium();                                                              \
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps installs it): the " \
                                        "HTML page was NOT checked in a browser"

TEST(HtmlReports, ShowPageHoldsTheSequenceAndItsScriptRuns) {
  REQUIRE_CHROMIUM(chromium);
  test::TempDir dir;
  CommandRun page = run_command({msptk_bin(), "show", (show_fixture() / "transcript.ndjson").string(), "--wire-log",
                                 (show_fixture() / "wire.log").string(), "--format", "html"});
  ASSERT_EQ(page.exit.code, 0) << page.err;
  EXPECT_EQ(page.out.find("://"), std::string::npos) << "the page must load nothing";
  const fs::path html = dir.path() / "show.html";
  test::write_text(html, page.out);
  const std::string url = "file://" + html.string();

  CommandRun shot = screenshot(chromium, url + "#open=8,10", dir.path() / "show.png", "1200,1300", dir.path() / "profile-shot");
  ASSERT_TRUE(fs::exists(dir.path() / "show.png")) << shot.err;
  EXPECT_GT(test::read_text(dir.path() / "show.png").size(), 10000u);

  CommandRun dom = dump_dom(chromium, url, dir.path() / "profile-dom");
  ASSERT_EQ(dom.exit.code, 0) << dom.err;
  const std::string& d = dom.out;
  expect_script_ran(d);
  // The totals line of the text form heads the page.
  CommandRun text = run_command({msptk_bin(), "show", (show_fixture() / "transcript.ndjson").string()});
  const std::string last = text.out.substr(text.out.rfind('\n', text.out.size() - 2) + 1);
  EXPECT_NE(d.find("<p id=\"totals\">" + last.substr(0, last.size() - 1) + "</p>"), std::string::npos) << last;
  // A row per frame outside the folded run (lines 10-14), the run's five frames inside its fold.
  for (int line : {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27})
    EXPECT_TRUE(std::regex_search(d, std::regex(fmt::format(R"(<details class="row frame [^"]*" data-line="{}")", line)))) << line;
  EXPECT_EQ(count(d, "<details class=\"row frame"), 22u);
  EXPECT_TRUE(std::regex_search(d, std::regex(R"(<details class="row fold s" data-line="10" data-method="item/delta">)"))) << d.substr(0, 4000);
  EXPECT_NE(d.find("item/delta ×5"), std::string::npos);
  EXPECT_EQ(count(d, "class=\"frame s\" data-line=\"1"), 5u);  // lines 10-14, members of the fold
  // Pairing, the error, the unanswered request, the answer to no request, timings.
  EXPECT_NE(d.find("class=\"row frame s under\" data-line=\"8\" data-method=\"turn/start\""), std::string::npos);
  EXPECT_NE(d.find("class=\"row frame s err under\" data-line=\"21\" data-method=\"turn/interrupt\""), std::string::npos);
  EXPECT_NE(d.find("class=\"row frame c unanswered\" data-line=\"23\""), std::string::npos);
  EXPECT_NE(d.find("class=\"row frame s unmatched\" data-line=\"22\""), std::string::npos);
  EXPECT_NE(d.find("<span class=\"t\">"), std::string::npos);
  // Each frame holds its pretty JSON.
  EXPECT_NE(d.find("  \"method\": \"turn/start\","), std::string::npos);

  // The filter box, given in the address: only turn/ rows stay visible.
  CommandRun filtered = dump_dom(chromium, url + "#filter=turn/", dir.path() / "profile-filter");
  ASSERT_EQ(filtered.exit.code, 0) << filtered.err;
  expect_script_ran(filtered.out);
  EXPECT_TRUE(std::regex_search(filtered.out, std::regex(R"(<details class="row frame c" data-line="7" data-method="turn/start">)")));
  EXPECT_TRUE(std::regex_search(filtered.out, std::regex(R"(<details class="row fold s hidden" data-line="10")"))) << filtered.out.substr(0, 3000);
  EXPECT_TRUE(std::regex_search(filtered.out, std::regex(R"(<span id="shown" class="muted">\d+ of \d+ rows match</span>)")));
}

TEST(HtmlReports, ShowPageHoldsAtMostTwentyThousandFrames) {
  test::TempDir dir;
  std::string text;
  for (int i = 0; i < 20005; ++i)
    text += fmt::format("{{\"dir\":\"server\",\"raw\":\"{{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"method\\\":\\\"m/{}\\\"}}\"}}\n", i % 2);
  test::write_text(dir.path() / "long.ndjson", text);
  CommandRun page = run_command({msptk_bin(), "show", (dir.path() / "long.ndjson").string(), "--format", "html"});
  ASSERT_EQ(page.exit.code, 0) << page.err;
  EXPECT_EQ(count(page.out, "<details class=\"row frame"), 20000u);
  EXPECT_NE(page.out.find("This page holds the first 20000 frames of 20005; 5 more are left out"), std::string::npos);
  EXPECT_NE(page.out.find("<p id=\"totals\">20005 frames: 20005 notifications"), std::string::npos);
}

// The fixture session without its line that is no frame (diff refuses it), as
// dir/expected.ndjson; returned: the same with two server values changed and a frame taken out.
std::string without_line(std::string t, const std::string& holding) {
  const std::size_t at = t.find(holding);
  const std::size_t start = t.rfind('\n', at) + 1;
  t.erase(start, t.find('\n', at) + 1 - start);
  return t;
}

fs::path changed_copy(const fs::path& dir) {
  std::string t = without_line(test::read_text(show_fixture() / "transcript.ndjson"), "sideways");
  test::write_text(dir / "expected.ndjson", t);
  auto replace = [&](const std::string& from, const std::string& to) {
    const std::size_t at = t.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    t.replace(at, from.size(), to);
  };
  replace(R"(\"status\":\"accepted\")", R"(\"status\":\"rejected\")");
  replace(R"(\"kind\":\"agentMessage\")", R"(\"kind\":\"reasoning\")");
  t = without_line(t, "turn/started");
  const fs::path file = dir / "actual.ndjson";
  test::write_text(file, t);
  return file;
}

TEST(HtmlReports, DiffPageShowsBothFramesWithThePlacesHighlighted) {
  REQUIRE_CHROMIUM(chromium);
  test::TempDir dir;
  const fs::path actual = changed_copy(dir.path());
  const std::string expected = (dir.path() / "expected.ndjson").string();
  CommandRun page = run_command({msptk_bin(), "diff", expected, actual.string(), "--format", "html"});
  ASSERT_EQ(page.exit.code, 1) << page.err;
  CommandRun text = run_command({msptk_bin(), "diff", expected, actual.string()});
  const fs::path html = dir.path() / "diff.html";
  test::write_text(html, page.out);
  const std::string url = "file://" + html.string();
  CommandRun shot = screenshot(chromium, url, dir.path() / "diff.png", "1200,1300", dir.path() / "profile-shot");
  ASSERT_TRUE(fs::exists(dir.path() / "diff.png")) << shot.err;
  CommandRun dom = dump_dom(chromium, url, dir.path() / "profile-dom");
  ASSERT_EQ(dom.exit.code, 0) << dom.err;
  const std::string& d = dom.out;
  EXPECT_EQ(d.find("id=\"script-error\""), std::string::npos);
  // The summary is the text report's verdict line.
  const std::string verdict = text.out.substr(text.out.rfind("divergent: "));
  EXPECT_NE(d.find("<p id=\"summary\">" + verdict.substr(0, verdict.size() - 1) + "</p>"), std::string::npos) << verdict;
  // The divergent response: the place highlighted on both sides, listed beneath.
  EXPECT_NE(d.find("<mark class=\"hl\">    \"status\": \"accepted\",</mark>"), std::string::npos) << d.substr(0, 5000);
  EXPECT_NE(d.find("<mark class=\"hl\">    \"status\": \"rejected\",</mark>"), std::string::npos);
  EXPECT_NE(d.find("<td>result.status</td><td>\"accepted\"</td><td>\"rejected\"</td>"), std::string::npos);
  EXPECT_NE(d.find("<mark class=\"hl\">      \"kind\": \"agentMessage\",</mark>"), std::string::npos);
  // The missing frame, and the identical runs folded.
  EXPECT_NE(d.find("<span class=\"badge missing\">missing</span>"), std::string::npos);
  EXPECT_NE(d.find("<details class=\"same\"><summary>7 identical frames · expected lines 1–7</summary>"), std::string::npos);
  EXPECT_EQ(count(d, "<div class=\"entry "), 3u) << "divergent, missing, divergent";
  EXPECT_NE(d.find("<details class=\"same\"><summary>11 identical frames · expected lines 16–26</summary>"), std::string::npos);
}

TEST(HtmlReports, CheckPageListsFailuresFirstWithTheirDiff) {
  REQUIRE_CHROMIUM(chromium);
  test::TempDir dir;
  // Two scenarios of corpus/: one intact, one whose golden transcript says the host answers
  // otherwise than the host (serve-fixture of the original, which also writes to stderr) does.
  const fs::path corpus = dir.path() / "corpus";
  for (const char* name : {"handshake-request-before-initialize", "framing-malformed-json"}) {
    fs::create_directories(corpus / name);
    fs::copy(test::source_dir() / "corpus" / name, corpus / name, fs::copy_options::recursive);
    fs::copy_file(corpus / name / "transcript.ndjson", corpus / name / "host.ndjson");
  }
  const fs::path broken = corpus / "handshake-request-before-initialize" / "transcript.ndjson";
  std::string t = test::read_text(broken);
  const std::size_t at = t.find("muse-session-server");
  ASSERT_NE(at, std::string::npos);
  t.replace(at, 19, "another-server");
  test::write_text(broken, t);
  const std::string host = fmt::format("sh -c 'echo the host starts >&2; exec \"$0\" serve-fixture --transcript \"$1\"' '{}' {{scenario}}/host.ndjson",
                                       msptk_bin());
  const fs::path html = dir.path() / "check.html";
  CommandRun run = run_command({msptk_bin(), "check", corpus.string(), "--host", host, "--html", html.string(), "--json",
                                (dir.path() / "check.json").string()},
                               std::chrono::seconds(120));
  ASSERT_EQ(run.exit.code, 1) << run.out << run.err;
  ASSERT_TRUE(fs::exists(html));
  const std::string url = "file://" + html.string();
  CommandRun shot = screenshot(chromium, url, dir.path() / "check.png", "1200,1400", dir.path() / "profile-shot");
  ASSERT_TRUE(fs::exists(dir.path() / "check.png")) << shot.err;
  CommandRun dom = dump_dom(chromium, url, dir.path() / "profile-dom");
  ASSERT_EQ(dom.exit.code, 0) << dom.err;
  const std::string& d = dom.out;
  EXPECT_EQ(d.find("id=\"script-error\""), std::string::npos);
  EXPECT_NE(d.find("1 passed, 1 failed, 0 skipped"), std::string::npos) << d.substr(0, 3000);
  // The failure's row comes first, and its section is open with the diff of the recording.
  const std::size_t fail_row = d.find("<tr class=\"fail\"><td><span class=\"badge fail\">FAIL</span></td><td><a href=\"#scenario-corpus_2fhandshake-request-before-initialize\">");
  const std::size_t pass_row = d.find("<tr class=\"pass\"><td><span class=\"badge pass\">PASS</span></td><td><a href=\"#scenario-corpus_2fframing-malformed-json\">");
  ASSERT_NE(fail_row, std::string::npos) << d.substr(0, 4000);
  ASSERT_NE(pass_row, std::string::npos);
  EXPECT_LT(fail_row, pass_row);
  EXPECT_NE(d.find("<details class=\"scenario fail\" id=\"scenario-corpus_2fhandshake-request-before-initialize\" open=\"\">"), std::string::npos);
  EXPECT_NE(d.find("<details class=\"scenario pass\" id=\"scenario-corpus_2fframing-malformed-json\">"), std::string::npos);
  EXPECT_NE(d.find("<mark class=\"hl\">      \"name\": \"another-server\",</mark>"), std::string::npos);
  EXPECT_NE(d.find("<mark class=\"hl\">      \"name\": \"muse-session-server\",</mark>"), std::string::npos);
  EXPECT_NE(d.find("<td>result.serverInfo.name</td>"), std::string::npos);
  EXPECT_NE(d.find("the host starts"), std::string::npos);  // its stderr tail
  // The same data as --json: every scenario and its status.
  const boost::json::value report = boost::json::parse(test::read_text(dir.path() / "check.json"));
  for (const auto& s : report.at("scenarios").as_array())
    EXPECT_NE(d.find(fmt::format("id=\"scenario-corpus_2f{}\"", std::string(s.at("scenario").as_string()))), std::string::npos);
}

}  // namespace
}  // namespace msptk::e2e
