// `msptk coverage --format html` rendered in a real browser: headless Chromium loads the page
// from a file (no network) and dumps the DOM it built (a screenshot too with MSPTK_SCREENSHOT_DIR
// set); the tables, their totals, the scenario links and an overview linking every section must
// be there, the enums table's values must get its width, and no page wider than the window. Skipped, with the reason, where Chromium is not
// installed (scripts/install-deps installs Debian's `chromium`).
#include "browser_support.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace msptk::e2e {
namespace {

namespace fs = std::filesystem;

TEST(CoverageBrowser, HtmlRendersTablesAndTotalsInChromium) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps installs it): the HTML coverage page was NOT checked in a browser";
  const fs::path stable = test::shared_corpus() / "stable";
  if (!fs::exists(stable)) GTEST_SKIP() << "public corpus not found at " << test::shared_corpus();
  test::TempDir dir;
  CommandRun page = run_command({msptk_bin(), "coverage", (test::source_dir() / "corpus").string(),
                                 test::shared_transcripts().string(), "--schema", stable.string(), "--format", "html"});
  ASSERT_EQ(page.exit.code, 0) << page.err;
  const fs::path html = dir.path() / "coverage.html";
  test::write_text(html, page.out);
  CommandRun text = run_command({msptk_bin(), "coverage", (test::source_dir() / "corpus").string(),
                                 test::shared_transcripts().string(), "--schema", stable.string()});
  ASSERT_EQ(text.exit.code, 0) << text.err;
  const std::string summary = text.out.substr(text.out.rfind("\nmethods ") + 1, std::string::npos);

  const fs::path shot = dir.path() / "coverage.png";
  if (screenshots_wanted()) {
    CommandRun shot_run = screenshot(chromium, "file://" + html.string(), shot, "1400,1000", dir.path() / "profile-shot");
    ASSERT_TRUE(fs::exists(shot)) << "chromium wrote no screenshot: " << shot_run.err;
  }
  // The probe: the enums table gives its width to the values, has no empty column, and the page
  // is no wider than the window.
  test::write_text(html, with_probe(page.out,
                                    "var t=document.querySelector('table[data-table=\"enums\"]');"
                                    "var c=t.rows[1].cells;set('values-share',c[c.length-1].getBoundingClientRect().width/t.getBoundingClientRect().width);"
                                    "var empty=0;for(var i=0;i<t.rows[0].cells.length;i++){var any=false;"
                                    "for(var r=1;r<t.rows.length;r++)if(t.rows[r].cells[i].textContent.trim())any=true;if(!any)empty++;}"
                                    "set('empty-columns',empty);"));
  CommandRun dom = dump_dom(chromium, "file://" + html.string(), dir.path() / "profile-dom");
  ASSERT_EQ(dom.exit.code, 0) << dom.err;
  const std::string& d = dom.out;
  ASSERT_NE(d.find("<table id=\"totals\">"), std::string::npos) << d.substr(0, 2000);
  for (const char* table : {"methods", "requests", "notifications", "errors", "capabilities", "enums", "itemKinds"}) {
    EXPECT_NE(d.find(fmt::format("data-table=\"{}\"", table)), std::string::npos) << table;
    EXPECT_NE(d.find(fmt::format("<h2 id=\"{}\">", table)), std::string::npos) << table;
  }
  // The totals the browser shows are the text report's summary line.
  std::string line = summary.substr(0, summary.find('\n'));
  EXPECT_NE(d.find("id=\"summary\">" + line + "</p>"), std::string::npos) << line;
  EXPECT_NE(d.find("Methods (client requests): "), std::string::npos);
  // Rows link the scenarios that exercise them, and the links resolve inside the page.
  EXPECT_NE(d.find("<a href=\"#scenario-approval-round-trip\">approval-round-trip</a>"), std::string::npos);
  EXPECT_NE(d.find("<tr id=\"scenario-approval-round-trip\">"), std::string::npos);
  EXPECT_NE(d.find("session/auraChanged"), std::string::npos);  // what the bundle does not have
  EXPECT_GT(probe_number(d, "values-share"), 0.5) << "the enums' values get the table's width";
  EXPECT_EQ(probe(d, "empty-columns"), "0");
  EXPECT_LE(probe_number(d, "overflow"), 0);
  // Every section is linked from the overview.
  const std::size_t nav = d.find("<nav id=\"overview\">");
  ASSERT_NE(nav, std::string::npos);
  const std::string overview = d.substr(nav, d.find("</nav>", nav) - nav);
  std::size_t sections = 0;
  for (std::size_t at = d.find("<h2 id=\""); at != std::string::npos; at = d.find("<h2 id=\"", at + 1), ++sections) {
    const std::string id = d.substr(at + 8, d.find('"', at + 8) - at - 8);
    EXPECT_NE(overview.find("href=\"#" + id + "\""), std::string::npos) << id;
  }
  EXPECT_GE(sections, 9u);
}

// Text and JSON over both corpora tell the same totals.
TEST(CoverageBrowser, TextAndJsonOverBothCorporaAgree) {
  const fs::path stable = test::shared_corpus() / "stable";
  if (!fs::exists(stable)) GTEST_SKIP() << "public corpus not found at " << test::shared_corpus();
  const std::vector<std::string> base = {msptk_bin(), "coverage", (test::source_dir() / "corpus").string(),
                                         test::shared_transcripts().string(), "--schema", stable.string()};
  CommandRun text = run_command(base);
  ASSERT_EQ(text.exit.code, 0) << text.err;
  std::vector<std::string> json_argv = base;
  json_argv.insert(json_argv.end(), {"--format", "json"});
  CommandRun js = run_command(json_argv);
  ASSERT_EQ(js.exit.code, 0) << js.err;
  const boost::json::value doc = boost::json::parse(js.out);
  const std::string summary = std::string(doc.at("summary").as_string());
  EXPECT_NE(text.out.find("\n" + summary + "\n"), std::string::npos) << summary;
  EXPECT_EQ(doc.at("scenarios").as_array().size(), 37u + 6u);
  std::size_t total = 0;
  for (const auto& t : doc.at("tables").as_array()) {
    total += t.at("total").to_number<std::size_t>();
    EXPECT_NE(text.out.find(fmt::format("{}: {}/{} covered", std::string(t.at("title").as_string()),
                                        t.at("covered").to_number<std::size_t>(), t.at("total").to_number<std::size_t>())),
              std::string::npos)
        << t.at("id");
  }
  EXPECT_EQ(doc.at("tables").at(0).at("total"), 57);  // the stable bundle's methods
  EXPECT_GT(total, 200u);
}

}  // namespace
}  // namespace msptk::e2e
