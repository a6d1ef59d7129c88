// The README's jobs run as written: every ```sh block of "Capturing a fixture from a real host"
// (write the script, record it three times, learn, check) and the check of "Asserting a corpus
// in CI",
// in a fresh folder, with `muse serve` standing for msptk_minting_host (a live host that mints
// ids, timestamps and durations on every run) and `msptk` for the built binary. A README whose
// example writes a fixture the other verbs refuse fails here.
#include "e2e_support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

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

}  // namespace
}  // namespace msptk::e2e
