// The host's stderr log under --redact (issue 24, item 9): the TextScrubber replaces every text
// of a replaced value wherever the stream is cut, and the StderrLog holds the bytes in a file
// without a name until the session ends, then writes host-stderr.log scrubbed of every value
// replaced in the session (also one the host logged before the frame holding it was seen),
// warning about lines that still mention a credential.
#include "test_support.hpp"

#include "msptk/recorder/stderr_log.hpp"

#include <gtest/gtest.h>

#include <random>

namespace msptk::recorder {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

std::string scrub(const std::vector<std::pair<std::string, std::string>>& replacements, const std::string& text,
                  const std::vector<std::size_t>& cuts) {
  TextScrubber scrubber(replacements);
  std::string out;
  auto append = [&](std::string_view bytes) { out.append(bytes); };
  std::size_t at = 0;
  for (std::size_t cut : cuts) {
    scrubber.feed(std::string_view(text).substr(at, cut - at), append);
    at = cut;
  }
  scrubber.feed(std::string_view(text).substr(at), append);
  scrubber.end(append);
  return out;
}

TEST(TextScrubber, ReplacesEveryTextWhereverTheStreamIsCut) {
  const std::vector<std::pair<std::string, std::string>> replacements = {
      {"sk-live-4242", "<redacted:1>"}, {"sk-live-4242-long", "<redacted:2>"}, {"abc", "<redacted:3>"}, {"", "x"}};
  const std::string text = "key sk-live-4242 then sk-live-4242-long, abcabc and sk-live-424 and sk-live-4242";
  const std::string expected =
      "key <redacted:1> then <redacted:2>, <redacted:3><redacted:3> and sk-live-424 and <redacted:1>";
  EXPECT_EQ(scrub(replacements, text, {}), expected);
  std::mt19937 rng(24);
  for (int round = 0; round < 500; ++round) {
    std::vector<std::size_t> cuts;
    for (std::size_t at = 0; at < text.size(); at += 1 + rng() % 6) cuts.push_back(at);
    EXPECT_EQ(scrub(replacements, text, cuts), expected) << round;
  }
  EXPECT_EQ(scrub({}, text, {3, 9}), text);
}

TEST(StderrLog, UnderRedactTheLogIsHeldWithoutANameAndWrittenScrubbedOfEveryReplacedValue) {
  TempDir tmp;
  auto redactor = Redactor::create({"params.apiKey"});
  ASSERT_TRUE(redactor);
  auto log = StderrLog::create(system_disk(), tmp.path(), &*redactor);
  ASSERT_TRUE(log) << log.error().render();
  // The host logs the key before the frame holding it reached the Redactor.
  log->write("starting with key sk-live-");
  log->write("4242\nan unrelated line\nuser password=hunter2\n");
  EXPECT_EQ(test::read_text(tmp / "host-stderr.log"), "");  // nothing on disk while held
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()), 1);
  ASSERT_TRUE(redactor->redact(Direction::client, R"({"jsonrpc":"2.0","method":"a","params":{"apiKey":"sk-live-4242"}})", 1));
  log->finish();
  EXPECT_FALSE(log->failure());
  EXPECT_EQ(test::read_text(tmp / "host-stderr.log"),
            "starting with key <redacted:1>\nan unrelated line\nuser password=hunter2\n");
  EXPECT_EQ(fs::status(tmp / "host-stderr.log").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  // The line the Redactor could not vet is named, as a credential in a frame would be.
  ASSERT_EQ(redactor->warnings().size(), 1u);
  EXPECT_EQ(redactor->warnings()[0].file, "host-stderr.log");
  EXPECT_EQ(redactor->warnings()[0].line, 3u);

  // Without --redact paths the bytes go to the log as they come.
  TempDir plain;
  auto watcher = Redactor::create({});
  auto direct = StderrLog::create(system_disk(), plain.path(), &*watcher);
  ASSERT_TRUE(direct);
  direct->write("as it comes\n");
  EXPECT_EQ(test::read_text(plain / "host-stderr.log"), "as it comes\n");
  direct->finish();
}

}  // namespace
}  // namespace msptk::recorder
