// The README's jobs run as written: every ```sh block of "Capturing a fixture from a real host"
// (write the script, record it three times, learn, check) and the check of "Asserting a corpus
// in CI"; and the block of "Comparing client versions" with `node vN/client.js` standing for the
// scripted client (fake_client.cpp; v2 starts in another workspaceRoot),
// in a fresh folder, with `muse serve` standing for msptk_minting_host (a live host that mints
// ids, timestamps and durations on every run) and `msptk` for the built binary. A README whose
// example writes a fixture the other verbs refuse fails here.
#include "e2e_support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

namespace msptk::e2e {
namespace {

namespace fs = std::filesystem;

// The first `count` ```sh blocks after the heading `from`, within its section.
std::string sh_blocks(const std::string& readme, const std::string& from, std::size_t count) {
  const std::size_t start = readme.find(from);
  EXPECT_NE(start, std::string::npos) << "README.md has no " << from;
  if (start == std::string::npos) return "";
  const std::size_t end = std::min(readme.find("\n### ", start + from.size()), readme.find("\n## ", start + from.size()));
  const std::string section = readme.substr(start, end == std::string::npos ? std::string::npos : end - start);
  std::string out;
  std::size_t taken = 0;
  for (std::size_t at = section.find("```sh\n"); at != std::string::npos && taken++ < count;
       at = section.find("```sh\n", at)) {
    const std::size_t body = at + 6;
    const std::size_t close = section.find("```", body);
    // Blocks inside a numbered step are indented by three spaces.
    std::istringstream lines(section.substr(body, close - body));
    std::string line;
    while (std::getline(lines, line)) out += (line.starts_with("   ") ? line.substr(3) : line) + "\n";
    at = close + 3;
  }
  return out;
}

TEST(ReadmeE2E, TheCaptureAndCheckJobsRunAsWritten) {
  test::TempDir tmp;
  std::ifstream in(test::source_dir() / "README.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string readme = text.str();
  const std::string capture = sh_blocks(readme, "### Capturing a fixture from a real host", 99);
  const std::string ci = sh_blocks(readme, "### Asserting a corpus in CI", 1);
  ASSERT_NE(capture.find("msptk learn"), std::string::npos) << capture;

  const fs::path bin = tmp / "bin";
  fs::create_directories(bin);
  fs::create_symlink(msptk_bin(), bin / "msptk");
  test::write_text(bin / "muse", fmt::format("#!/bin/sh\nexec '{}'\n", std::string(MSPTK_MINTING_HOST)));
  fs::permissions(bin / "muse", fs::perms::owner_all);
  const fs::path work = tmp / "work";
  fs::create_directories(work);
  const std::string script = fmt::format(
      "set -eu\ncd '{}'\nexport PATH='{}':\"$PATH\"\nexport MUSE_API_URL=http://127.0.0.1:9\n{}\n{}\n", work.string(),
      bin.string(), capture, ci);
  test::write_text(tmp / "jobs.sh", script);
  auto run = run_command({"/bin/bash", (tmp / "jobs.sh").string()}, std::chrono::seconds(60));
  EXPECT_EQ(run.exit.code, 0) << script << "\n--- stdout\n" << run.out << "\n--- stderr\n" << run.err;
  EXPECT_TRUE(fs::exists(work / "corpus" / "msptk-corpus.json")) << run.out;
  auto validate = run_command({msptk_bin(), "validate", (work / "corpus").string()});
  EXPECT_EQ(validate.exit.code, 0) << validate.out << validate.err;
}

TEST(ReadmeE2E, TheClientVersionsJobRunsAsWritten) {
  const fs::path scenario = fs::path(MSPTK_SHARED_CORPUS) / "transcripts" / "text-run-single-turn";
  if (!fs::exists(scenario)) GTEST_SKIP() << scenario << " is absent (the public corpus beside the project)";
  test::TempDir tmp;
  std::ifstream in(test::source_dir() / "README.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string block = sh_blocks(text.str(), "### Comparing client versions", 1);
  std::vector<std::string> commands;
  std::istringstream lines(block);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) commands.push_back(line);
  ASSERT_EQ(commands.size(), 3u) << block;

  const fs::path bin = tmp / "bin";
  fs::create_directories(bin);
  fs::create_symlink(msptk_bin(), bin / "msptk");
  // node vN/client.js --muse HOST: the scenario's client lines played to HOST; v2's session/start
  // names another workspaceRoot.
  test::write_text(bin / "node", fmt::format(R"(#!/bin/sh
set -eu
t=corpus/text-run-single-turn/transcript.ndjson
case "$1" in v2/*) sed 's#/home/me/src/proj#/home/me/src/other#' "$t" >v2.ndjson; t=v2.ndjson ;; esac
exec '{}' --transcript "$t" -- sh -c "$3"
)", fake_client_bin()));
  fs::permissions(bin / "node", fs::perms::owner_all);
  const fs::path work = tmp / "work";
  fs::create_directories(work / "corpus");
  fs::copy(scenario, work / "corpus" / "text-run-single-turn", fs::copy_options::recursive);

  const int expected[] = {0, 1, 1};  // v1 passes; v2 fails; the diff of their client sides is divergent
  std::string out;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const std::string script =
        fmt::format("cd '{}'\nexport PATH='{}':\"$PATH\"\n{}\n", work.string(), bin.string(), commands[i]);
    auto run = run_command({"/bin/sh", "-c", script}, std::chrono::seconds(60));
    EXPECT_EQ(run.exit.code, expected[i]) << commands[i] << "\n--- stdout\n" << run.out << "\n--- stderr\n" << run.err;
    out = run.out;
  }
  // What the README shows of the diff.
  EXPECT_NE(out.find("divergent client request session/start"), std::string::npos) << out;
  EXPECT_NE(out.find("params.workspaceRoot: \"/home/me/src/proj\" → \"/home/me/src/other\""), std::string::npos) << out;
  EXPECT_NE(out.find("expected v1/corpus/text-run-single-turn/transcript.ndjson:4"), std::string::npos) << out;
}

}  // namespace
}  // namespace msptk::e2e
