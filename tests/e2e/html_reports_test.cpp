// The HTML pages of `msptk show --format html`, `msptk diff --format html` and `msptk check
// --html` loaded in headless Chromium (browser_support.hpp) at 1400×1000, one browser run a page:
// the DOM the browser built holds what the pages promise (rows that lead with what happened, the
// manifest under the title, the changed characters marked, the first failure and its diff on the
// first screen, the status filter working), a probe measures what only layout knows (no page
// wider than the window, even with every row expanded), and the page's script ran to its end
// without an error. With MSPTK_SCREENSHOT_DIR set each test also takes the screenshot docs/img/
// holds. Skipped, with the reason, where Chromium is not installed.
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

// Writes `page` (with `probe_script`) to dir/name and returns the DOM Chromium built; takes the
// screenshot `png` first when screenshots are wanted.
std::string load(const std::string& chromium, const fs::path& dir, const std::string& name, const std::string& page,
                 const std::string& probe_script, const std::string& png, const std::string& shot_size,
                 const std::string& fragment = {}) {
  const fs::path html = dir / name;
  if (screenshots_wanted()) {
    test::write_text(html, page);
    CommandRun shot = screenshot(chromium, "file://" + html.string() + fragment, dir / png, shot_size, dir / "profile-shot");
    EXPECT_TRUE(fs::exists(dir / png)) << shot.err;
  }
  test::write_text(html, with_probe(page, probe_script));
  CommandRun dom = dump_dom(chromium, "file://" + html.string(), dir / "profile-dom");
  EXPECT_EQ(dom.exit.code, 0) << dom.err;
  return dom.out;
}

// The probe part every page shares: the page is no wider than the window, closed and with every
// <details> open.
constexpr const char* kOpenAll =
    "set('overflow-closed',d.scrollWidth-d.clientWidth);"
    "document.querySelectorAll('details').forEach(function(x){x.open=true;});";

TEST(HtmlReports, ShowPageLeadsWithWhatHappenedAndNamesTheScenario) {
  REQUIRE_CHROMIUM(chromium);
  test::TempDir dir;
  // The fixture session as a scenario folder with a manifest.
  const fs::path scenario = dir.path() / "session-fixture";
  fs::create_directories(scenario);
  fs::copy_file(show_fixture() / "transcript.ndjson", scenario / "transcript.ndjson");
  test::write_text(scenario / "manifest.json",
                   R"({"kind":"mspTranscript","schemaVersion":1,"scenario":"session-fixture","provenance":"host-generated",)"
                   R"("fingerprint":"sha256:1d03f10c2e42543d1a8871b770aa6c3617b0e27829752ceb2d84ccf5f33066ac","viewSchemaVersion":1,)"
                   R"("serverConfig":{"frameLimitBytes":10485760},"transports":["stdio"],"normalize":["id","params.commandId"],)"
                   R"("seeds":{"idSeed":7,"clockStartMs":1754590931000},"source":[]})");
  CommandRun page = run_command({msptk_bin(), "show", scenario.string(), "--wire-log", (show_fixture() / "wire.log").string(),
                                 "--format", "html"});
  ASSERT_EQ(page.exit.code, 0) << page.err;
  EXPECT_EQ(page.out.find("://"), std::string::npos) << "the page must load nothing";
  const std::string d = load(chromium, dir.path(), "show.html", page.out,
                             std::string("set('caret',getComputedStyle(document.querySelector('#seq>.row .caret'),'::before').content);"
                                         "var box=document.getElementById('filter');box.value='turn/';box.dispatchEvent(new Event('input'));"
                                         "set('shown',document.getElementById('shown').textContent);"
                                         "set('fold-hidden',document.querySelector('#seq>[data-line=\"10\"]').classList.contains('hidden'));"
                                         "set('turn-hidden',document.querySelector('#seq>[data-line=\"7\"]').classList.contains('hidden'));"
                                         "box.value='';box.dispatchEvent(new Event('input'));") +
                                 kOpenAll,
                             "show.png", "1400,1000", "#open=8,10");
  expect_script_ran(d);
  // The title names the scenario; its manifest is under it.
  EXPECT_NE(d.find("<title>msptk show: session-fixture</title>"), std::string::npos) << d.substr(0, 3000);
  EXPECT_NE(d.find("<dt>provenance</dt><dd>host-generated</dd>"), std::string::npos);
  EXPECT_NE(d.find("<code>sha256:1d03f10c2e42543d1a8871b770aa6c3617b0e27829752ceb2d84ccf5f33066ac</code>"), std::string::npos);
  EXPECT_NE(d.find("idSeed 7"), std::string::npos);
  // The totals line of the text form heads the page.
  CommandRun text = run_command({msptk_bin(), "show", (show_fixture() / "transcript.ndjson").string()});
  const std::string last = text.out.substr(text.out.rfind('\n', text.out.size() - 2) + 1);
  EXPECT_NE(d.find("<p id=\"totals\">" + last.substr(0, last.size() - 1) + "</p>"), std::string::npos) << last;
  // A row per frame outside the folded run (lines 10-14), the run's five frames inside its fold.
  for (int line : {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27})
    EXPECT_TRUE(std::regex_search(d, std::regex(fmt::format(R"(<details class="row frame [^"]*" data-line="{}")", line)))) << line;
  EXPECT_EQ(count(d, "<details class=\"row frame"), 22u);
  EXPECT_TRUE(std::regex_search(d, std::regex(R"(<details class="row fold s" data-line="10" data-method="item/delta")"))) << d.substr(0, 4000);
  EXPECT_NE(d.find("item/delta ×5"), std::string::npos);
  // Summaries lead with what happened: the delta's text, the error's code and message, the
  // turn's final status, the item's kind and text.
  EXPECT_NE(d.find("<span class=\"sum\">delta=\"Run\""), std::string::npos);
  EXPECT_NE(d.find("<span class=\"sum\">delta=\"Two\""), std::string::npos);
  EXPECT_NE(d.find("<span class=\"sum\">delta=\" deltas\""), std::string::npos);
  EXPECT_NE(d.find("<span class=\"sum\">code=-32030 message=\"no such turn: t-9\""), std::string::npos);
  EXPECT_NE(d.find("<span class=\"sum\">status=\"completed\""), std::string::npos);
  EXPECT_NE(d.find("<span class=\"sum\">kind=\"agentMessage\" text=\"Running the suite…\""), std::string::npos);
  // The session's id is named once, not on every row.
  EXPECT_EQ(count(d, "sessionId=\"0198f0aa-1111-7000-8000-0000000000aa\""), 1u);
  // No label said twice: a row without a method is labelled by its kind alone.
  EXPECT_FALSE(std::regex_search(d, std::regex(R"(<span class="label">(\w+)</span> <span class="kind">\1)"))) << "a doubled label";
  EXPECT_EQ(d.find("class=\"tag e\""), std::string::npos);
  // Pairing, the error, the unanswered request, the answer to no request, timings.
  EXPECT_NE(d.find("class=\"row frame s under\" data-line=\"8\" data-method=\"turn/start\""), std::string::npos);
  EXPECT_NE(d.find("class=\"row frame s err under\" data-line=\"21\" data-method=\"turn/interrupt\""), std::string::npos);
  EXPECT_NE(d.find("class=\"row frame c unanswered\" data-line=\"23\""), std::string::npos);
  EXPECT_NE(d.find("class=\"row frame s unmatched\" data-line=\"22\""), std::string::npos);
  EXPECT_NE(d.find("<span class=\"t\">"), std::string::npos);
  // Each frame holds its pretty JSON; a row that expands shows a ▸.
  EXPECT_NE(d.find("  \"method\": \"turn/start\","), std::string::npos);
  EXPECT_EQ(probe(d, "caret"), "&quot;▸&quot;");
  // The filter: only turn/ rows stay.
  EXPECT_TRUE(std::regex_match(probe(d, "shown"), std::regex(R"(\d+ of \d+ rows match)"))) << probe(d, "shown");
  EXPECT_EQ(probe(d, "fold-hidden"), "true");
  EXPECT_EQ(probe(d, "turn-hidden"), "false");
  // Never wider than the window, even with every frame open.
  EXPECT_LE(probe_number(d, "overflow-closed"), 0);
  EXPECT_LE(probe_number(d, "overflow"), 0);
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

// The fixture session without its line that is no frame (diff refuses it).
std::string without_line(std::string t, const std::string& holding) {
  const std::size_t at = t.find(holding);
  const std::size_t start = t.rfind('\n', at) + 1;
  t.erase(start, t.find('\n', at) + 1 - start);
  return t;
}

// A notification of 40 members, one of which is `changed`.
std::string big_frame(int changed) {
  std::string params;
  for (int i = 0; i < 40; ++i) params += fmt::format("{}\\\"m{}\\\":{}", i ? "," : "", i, i == 20 ? changed : i);
  return "{\"dir\":\"server\",\"raw\":\"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"method\\\":\\\"big/frame\\\",\\\"params\\\":{" + params + "}}\"}\n";
}

// dir/expected.ndjson: the fixture plus a big frame; returned: the same with the client's
// version, two server values and the big frame's one member changed and a frame taken out.
fs::path changed_copy(const fs::path& dir) {
  std::string t = without_line(test::read_text(show_fixture() / "transcript.ndjson"), "sideways") + big_frame(20);
  test::write_text(dir / "expected.ndjson", t);
  auto replace = [&](const std::string& from, const std::string& to) {
    const std::size_t at = t.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    t.replace(at, from.size(), to);
  };
  replace(R"(\"version\":\"0.0.0\")", R"(\"version\":\"0.0.1\")");
  replace(R"(\"status\":\"accepted\")", R"(\"status\":\"rejected\")");
  replace(R"(\"kind\":\"agentMessage\")", R"(\"kind\":\"reasoning\")");
  replace(R"(\"m20\":20)", R"(\"m20\":2000)");
  t = without_line(t, "turn/started");
  const fs::path file = dir / "actual.ndjson";
  test::write_text(file, t);
  return file;
}

TEST(HtmlReports, DiffPageMarksTheChangedCharactersAndFoldsWhatIsTheSame) {
  REQUIRE_CHROMIUM(chromium);
  test::TempDir dir;
  const fs::path actual = changed_copy(dir.path());
  const std::string expected = (dir.path() / "expected.ndjson").string();
  CommandRun page = run_command({msptk_bin(), "diff", expected, actual.string(), "--format", "html"});
  ASSERT_EQ(page.exit.code, 1) << page.err;
  CommandRun text = run_command({msptk_bin(), "diff", expected, actual.string()});
  const std::string d = load(chromium, dir.path(), "diff.html", page.out, kOpenAll, "diff.png", "1400,1000");
  EXPECT_EQ(d.find("id=\"script-error\""), std::string::npos);
  // The summary is the text report's verdict line; its masked-paths and unified lines are here.
  const std::string verdict = text.out.substr(text.out.rfind("divergent: "));
  EXPECT_NE(d.find("<p id=\"summary\">" + verdict.substr(0, verdict.size() - 1) + "</p>"), std::string::npos) << verdict;
  ASSERT_NE(text.out.find("masked paths (unify): "), std::string::npos) << text.out;
  EXPECT_NE(d.find("<p class=\"facts masks\">masked paths (unify): "), std::string::npos);
  ASSERT_NE(text.out.find("unified params.clientInfo.version: \"0.0.0\" → \"0.0.1\""), std::string::npos) << text.out;
  EXPECT_NE(d.find("<p class=\"facts client-info\">unified <code>params.clientInfo.version</code>: <mark class=\"uni-v\">\"0.0.<b "
                   "class=\"ch\">0</b>\"</mark> → <mark class=\"uni-v\">\"0.0.<b class=\"ch\">1</b>\"</mark></p>"),
            std::string::npos)
      << d.substr(0, 5000);
  // The equivalent frame (the client's version unified): one line naming the unified value,
  // expanding to both frames with it marked.
  EXPECT_TRUE(std::regex_search(d, std::regex(R"(<details class="entry equivalent" id="cmp-0-0" open=""><summary><span class="badge equivalent">equivalent</span> client request initialize · expected line 1 ↔ actual line 1 · unified <code>params.clientInfo.version</code>)")))
      << d.substr(0, 6000);
  EXPECT_NE(d.find("<mark class=\"uni\">      \"version\": \"0.0.<b class=\"ch\">1</b>\"</mark>"), std::string::npos);
  // The divergent response: the line highlighted on both sides, and in it the characters changed.
  EXPECT_NE(d.find("<mark class=\"hl\">    \"status\": \"<b class=\"ch\">accep</b>ted\",</mark>"), std::string::npos);
  EXPECT_NE(d.find("<mark class=\"hl\">    \"status\": \"<b class=\"ch\">rejec</b>ted\",</mark>"), std::string::npos);
  EXPECT_NE(d.find("<td>result.status</td><td>\"<b class=\"ch\">accep</b>ted\"</td><td>\"<b class=\"ch\">rejec</b>ted\"</td>"),
            std::string::npos);
  EXPECT_NE(d.find("<mark class=\"hl\">      \"kind\": \"<b class=\"ch\">agentMessage</b>\",</mark>"), std::string::npos);
  // The big frame: its one changed line marked, the unchanged lines around it folded.
  EXPECT_NE(d.find("<mark class=\"hl\">    \"m20\": 20<b class=\"ch\">00</b>,</mark>"), std::string::npos);
  EXPECT_TRUE(std::regex_search(d, std::regex(R"(<details class="ctx" open=""><summary>⋯ \d+ unchanged lines</summary>)")));
  // The missing frame, and the identical runs folded, said plainly.
  EXPECT_NE(d.find("<span class=\"badge missing\">missing</span>"), std::string::npos);
  EXPECT_NE(d.find("<details class=\"same\" open=\"\"><summary>6 identical frames · expected lines 2–7</summary>"), std::string::npos);
  EXPECT_FALSE(std::regex_search(d, std::regex(R"(lines (\d+)–\1\b)"))) << "a range of one line";
  EXPECT_EQ(d.find("(or not compared)"), std::string::npos);
  EXPECT_EQ(count(d, "<div class=\"entry "), 4u) << "divergent, missing, divergent, divergent";
  // An identical frame expands to its pretty JSON.
  EXPECT_TRUE(std::regex_search(d, std::regex(R"(<details class="f" open=""><summary>\s*2  .*</summary><pre class="json">\{)")));
  // Both files linked.
  EXPECT_NE(d.find("<a href=\"file://" + expected + "\"><code>" + expected + "</code></a>"), std::string::npos);
  EXPECT_NE(d.find("<a href=\"file://" + actual.string() + "\"><code>" + actual.string() + "</code></a>"), std::string::npos);
  EXPECT_LE(probe_number(d, "overflow-closed"), 0);
  EXPECT_LE(probe_number(d, "overflow"), 0);
}

TEST(HtmlReports, CheckPageShowsTheFirstFailureAndItsDiffOnTheFirstScreen) {
  REQUIRE_CHROMIUM(chromium);
  test::TempDir dir;
  // Three scenarios of corpus/: one whose golden transcript says the host answers otherwise than
  // the host (serve-fixture of the original, which also writes to stderr, one line JSON) does.
  const fs::path corpus = dir.path() / "corpus";
  for (const char* name : {"handshake-request-before-initialize", "framing-malformed-json", "framing-missing-jsonrpc-version"}) {
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
  const std::string host = fmt::format(
      "sh -c 'echo the host starts >&2; echo \"{{\\\"level\\\":\\\"info\\\",\\\"msg\\\":\\\"ready\\\"}}\" >&2; "
      "exec \"$0\" serve-fixture --transcript \"$1\"' '{}' {{scenario}}/host.ndjson",
      msptk_bin());
  const fs::path html = dir.path() / "check.html";
  CommandRun run = run_command({msptk_bin(), "check", corpus.string(), "--host", host, "--html", html.string(), "--json",
                                (dir.path() / "check.json").string()},
                               std::chrono::seconds(120));
  ASSERT_EQ(run.exit.code, 1) << run.out << run.err;
  ASSERT_TRUE(fs::exists(html));
  const std::string d = load(chromium, dir.path(), "check-page.html", test::read_text(html),
                             "var f=document.querySelector('details.scenario.fail');"
                             "set('fail-top',f.getBoundingClientRect().top);"
                             "var e=f.querySelector('.entry');set('entry-top',e?e.getBoundingClientRect().top:-1);"
                             "set('width',window.innerWidth);"
                             "document.querySelector('#tabs a[data-filter=\"failed\"]').click();"
                             "var v=[];document.querySelectorAll('details.scenario').forEach(function(x){if(x.offsetParent!==null)v.push(x.id);});"
                             "set('visible-failed',v.join(' '));"
                             "document.querySelector('#tabs a[data-filter=\"passed\"]').click();"
                             "set('visible-passed',document.querySelectorAll('details.scenario:not(.hidden)').length);"
                             "document.querySelector('#tabs a[data-filter=\"all\"]').click();" +
                                 std::string(kOpenAll),
                             "check.png", "1400,1000");
  expect_script_ran(d);
  EXPECT_NE(d.find("2 passed, 1 failed, 0 skipped"), std::string::npos) << d.substr(0, 3000);
  // The summary bar and the tabs, before the scenarios.
  const std::size_t bar = d.find("<div class=\"bar\" id=\"bar\">");
  ASSERT_NE(bar, std::string::npos);
  EXPECT_NE(d.find("<a href=\"#filter=failed\" data-filter=\"failed\" class=\"failed\">Failed<b>1</b></a>"), std::string::npos);
  EXPECT_NE(d.find("<a href=\"#filter=passed\" data-filter=\"passed\" class=\"passed\">Passed<b>2</b></a>"), std::string::npos);
  // The failure first, open, its top and its diff's first entry within the first 1000 pixels.
  const std::size_t fail = d.find("<details class=\"scenario fail\" data-status=\"failed\" id=\"scenario-corpus_2fhandshake-request-before-initialize\" open=\"\">");
  const std::size_t pass = d.find("<details class=\"scenario pass\" data-status=\"passed\" id=\"scenario-corpus_2fframing-malformed-json\"");
  ASSERT_NE(fail, std::string::npos) << d.substr(0, 5000);
  ASSERT_NE(pass, std::string::npos);
  EXPECT_LT(bar, fail);
  EXPECT_LT(fail, pass);
  // Laid out 1400 pixels wide; an element's top at scroll 0 does not depend on the window's height.
  EXPECT_EQ(probe_number(d, "width"), 1400);
  EXPECT_GT(probe_number(d, "fail-top"), 0);
  EXPECT_LT(probe_number(d, "fail-top"), 1000);
  EXPECT_GT(probe_number(d, "entry-top"), 0);
  EXPECT_LT(probe_number(d, "entry-top"), 1000 - 100) << "the diff starts on the first screen";
  // The filter: Failed keeps the failure only, Passed the two passes.
  EXPECT_EQ(probe(d, "visible-failed"), "scenario-corpus_2fhandshake-request-before-initialize");
  EXPECT_EQ(probe(d, "visible-passed"), "2");
  // The failure's reason, said once.
  const boost::json::value report = boost::json::parse(test::read_text(dir.path() / "check.json"));
  std::string reason;
  for (const auto& s : report.at("scenarios").as_array()) {
    EXPECT_NE(d.find(fmt::format("id=\"scenario-corpus_2f{}\"", std::string(s.at("scenario").as_string()))), std::string::npos);
    if (s.at("status") == "fail") reason = std::string(s.at("reason").as_string());
  }
  ASSERT_FALSE(reason.empty());
  std::string escaped = reason;
  for (std::size_t p = escaped.find('&'); p != std::string::npos; p = escaped.find('&', p + 1)) escaped.replace(p, 1, "&amp;");
  for (std::size_t p = escaped.find('<'); p != std::string::npos; p = escaped.find('<', p + 1)) escaped.replace(p, 1, "&lt;");
  for (std::size_t p = escaped.find('>'); p != std::string::npos; p = escaped.find('>', p + 1)) escaped.replace(p, 1, "&gt;");
  EXPECT_EQ(count(d, escaped), 1u) << reason;
  // The diff of the recording: both frames, the place highlighted and listed.
  EXPECT_NE(d.find("<mark class=\"hl\">      \"name\": \"<b class=\"ch\">another</b>-server\",</mark>"), std::string::npos) << d.substr(0, 8000);
  EXPECT_NE(d.find("<mark class=\"hl\">      \"name\": \"<b class=\"ch\">muse-session</b>-server\",</mark>"), std::string::npos);
  EXPECT_NE(d.find("<td>result.serverInfo.name</td>"), std::string::npos);
  // The recording was temporary: named, not linked, and the page says how to keep it.
  EXPECT_NE(d.find("(a temporary recording, removed after the run: msptk check --keep DIR keeps the recordings)"), std::string::npos);
  EXPECT_FALSE(std::regex_search(d, std::regex(R"(<a href="file://[^"]*msptk-check-)"))) << "a link to a removed folder";
  // The host's stderr tail, its JSON line pretty.
  EXPECT_NE(d.find("the host starts"), std::string::npos);
  EXPECT_NE(d.find("<span class=\"j\">{\n  \"level\": \"info\",\n  \"msg\": \"ready\"\n}\n</span>"), std::string::npos);
  EXPECT_LE(probe_number(d, "overflow-closed"), 0);
  EXPECT_LE(probe_number(d, "overflow"), 0);
}

}  // namespace
}  // namespace msptk::e2e
