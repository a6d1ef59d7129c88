// Staging folders (transcript/folder_rewrite.hpp): named after the process that made them, removed
// on success and on every error path, and swept when a killed process left one: removed when its
// process is provably gone, left to a live one, reported when its name says no process.
#include "test_support.hpp"

#include "msptk/transcript/folder_rewrite.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

namespace msptk {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The start time field of /proc/<pid>/stat.
std::string start_of(long pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string stat;
  std::getline(in, stat);
  std::size_t at = stat.rfind(')') + 1;
  for (int field = 2; field < 21; ++field) at = stat.find(' ', at + 1);  // to the space before field 22
  return stat.substr(at + 1, stat.find(' ', at + 1) - at - 1);
}

// A pid that no process has now: a child that exited and was reaped.
long gone_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return pid;
}

TEST(Staging, AStagingFolderNamesItsProcessAndGoesWithTheObject) {
  TempDir tmp;
  fs::create_directories(tmp / "corpus" / "s");
  fs::path made;
  {
    auto staging = StagingFolder::create(tmp / "corpus" / "s", "rewrite");
    ASSERT_TRUE(staging) << staging.error().render();
    made = staging->dir();
    const std::string name = made.filename().string();
    const std::string prefix = fmt::format(".s.rewrite.msptk-{}-{}-", ::getpid(), start_of(::getpid()));
    EXPECT_EQ(name.rfind(prefix, 0), 0u) << name;
    EXPECT_EQ(name.size(), prefix.size() + 6) << name;
    // The start time is the process's own, not a figure that moves as it runs (its memory).
    std::vector<std::string> ballast(200, std::string(1 << 20, 'b'));
    EXPECT_EQ(name.rfind(fmt::format(".s.rewrite.msptk-{}-{}-", ::getpid(), start_of(::getpid())), 0), 0u) << name;
    EXPECT_EQ(ballast.size(), 200u);
    // Our own staging folder is in use: a sweep leaves it, and says nothing of it.
    auto found = sweep_staging({tmp / "corpus"});
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].fate, StagingLeftover::Fate::in_use);
    EXPECT_EQ(describe_leftovers(found), "");
    EXPECT_TRUE(fs::exists(made));
  }
  EXPECT_FALSE(fs::exists(made));
  EXPECT_EQ(names_in(tmp / "corpus"), std::vector<std::string>{"s"});
}

TEST(Staging, ASweepRemovesWhatAGoneProcessLeftAndReportsWhatNamesNoProcess) {
  TempDir tmp;
  const fs::path corpus = tmp / "corpus";
  fs::create_directories(corpus / "s");
  test::write_text(corpus / "s" / "manifest.json", "{}");
  test::write_text(corpus / "s" / "transcript.ndjson", "");
  const long dead = gone_pid();
  // Left by a process that is gone: beside the scenario (a rewrite) and inside it (a candidate).
  const fs::path rewrite = corpus / fmt::format(".s.rewrite.msptk-{}-12345-AbC123", dead);
  const fs::path candidate = corpus / "s" / fmt::format(".pending-new.msptk-{}-99-zzzzzz", dead);
  // A live pid whose start time is another: the pid was reused, the folder is stale.
  const fs::path reused = corpus / fmt::format(".s.regen.msptk-{}-1-qwerty", ::getpid());
  // Older names, which say no process: reported, kept.
  const fs::path older = corpus / ".s.rewrite-Xy12ab";
  const fs::path older_pending = corpus / "s" / ".pending-new-Qq11Zz";
  // Not staging folders at all: untouched, unreported.
  const fs::path hidden = corpus / ".git";
  const fs::path look_alike = corpus / ".s.rewrite.msptk-12-34-toolongname";
  for (const fs::path& dir : {rewrite, candidate, reused, older, older_pending, hidden, look_alike})
    fs::create_directories(dir / "folder");
  test::write_text(rewrite / "folder" / "transcript.ndjson", "old\n");

  auto found = sweep_staging(staging_places(corpus));
  const std::string said = describe_leftovers(found);
  for (const fs::path& gone : {rewrite, candidate, reused}) {
    EXPECT_FALSE(fs::exists(gone)) << gone;
    EXPECT_NE(said.find(fmt::format("msptk: note: removed {}: a staging folder left by msptk process ", gone.string())),
              std::string::npos)
        << said;
  }
  for (const fs::path& kept : {older, older_pending}) {
    EXPECT_TRUE(fs::exists(kept)) << kept;
    EXPECT_NE(said.find(fmt::format("msptk: warning: {}: a staging folder of an older msptk", kept.string())),
              std::string::npos)
        << said;
  }
  EXPECT_TRUE(fs::exists(hidden));
  EXPECT_TRUE(fs::exists(look_alike));
  EXPECT_EQ(said.find(".git"), std::string::npos) << said;
  EXPECT_EQ(said.find("toolongname"), std::string::npos) << said;
  EXPECT_EQ(found.size(), 5u);

  // From the scenario folder too: it and its parent are looked at.
  const fs::path again = corpus / fmt::format(".s.rewrite.msptk-{}-7-aaaaaa", dead);
  fs::create_directories(again);
  found = sweep_staging(staging_places(corpus / "s"));
  EXPECT_FALSE(fs::exists(again));
}

TEST(Staging, ASymbolicLinkToAnotherFileSystemMovesWithTheRewrittenFolder) {
  TempDir tmp;
  const fs::path s = tmp / "corpus" / "s";
  fs::create_directories(s);
  test::write_text(s / "transcript.ndjson", "old\n");
  // /proc is another file system than any temporary folder: a symbolic link is not a mount point
  // (it moves with the folder), so the rewrite goes ahead.
  fs::create_directory_symlink("/proc", s / "link");
  auto rewritten = rewrite_folder(s, {{"transcript.ndjson", "new\n"}});
  ASSERT_TRUE(rewritten) << rewritten.error().render();
  EXPECT_EQ(test::read_text(s / "transcript.ndjson"), "new\n");
  EXPECT_EQ(names_in(tmp / "corpus"), std::vector<std::string>{"s"});
}

}  // namespace
}  // namespace msptk
