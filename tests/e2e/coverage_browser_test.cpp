// `msptk coverage --format html` rendered in a real browser: headless Chromium loads the page
// from a file (no network), takes a screenshot and dumps the DOM it built; the tables, their
// totals and the scenario links must be there. Skipped, with the reason, where Chromium is not
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
  CommandRun shot_run = screenshot(chromium, "file://" + html.string(), shot, "1280,2400", dir.path() / "profile-shot");
  ASSERT_TRUE(fs::exists(shot)) << "chromium wrote no screenshot: " << shot_run.err;
  const std::string png = test::read_text(shot);
  ASSERT_GT(png.size(), 10000u) << "screenshot too small to show the page";
  EXPECT_EQ(png.substr(1, 3), "PNG");
  if (const char* keep = std::getenv("MSPTK_KEEP_SCREENSHOT"); keep && *keep) fs::copy_file(shot, keep, fs::copy_options::overwrite_existing);

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
