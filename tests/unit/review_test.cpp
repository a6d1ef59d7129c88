// The review loop with a scripted Terminal: decisions applied to candidate folders (accept
// equivalent, justify divergent with empty answers refused, reject, skip, quit), the bulk
// actions, and the rules of accept() itself.
#include "msptk/review/session.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/writer.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <fstream>

namespace msptk::review {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

class ScriptedTerminal final : public Terminal {
 public:
  explicit ScriptedTerminal(std::deque<std::string> answers) : answers_(std::move(answers)) {}
  void show(const std::string& text) override { shown += text; }
  std::optional<std::string> ask(const std::string& prompt) override {
    prompts.push_back(prompt);
    if (answers_.empty()) return std::nullopt;
    std::string a = answers_.front();
    answers_.pop_front();
    return a;
  }
  std::string shown;
  std::vector<std::string> prompts;

 private:
  std::deque<std::string> answers_;
};

const char* kManifest = R"({"kind":"mspTranscript","schemaVersion":1,"scenario":"%s","provenance":"hand-authored",
"fingerprint":"sha256:%s","viewSchemaVersion":1,"serverConfig":{"frameLimitBytes":10485760},"transports":["stdio"],
"normalize":["result.session.sessionId"],"seeds":{"idSeed":7,"clockStartMs":1754590931000},"source":[]})";

void write_scenario(const fs::path& dir, const std::string& name, const std::string& session, const std::string& title) {
  fs::create_directories(dir);
  char manifest[1024];
  std::snprintf(manifest, sizeof manifest, kManifest, name.c_str(), std::string(64, 'a').c_str());
  std::ofstream(dir / "manifest.json") << manifest;
  auto writer = TranscriptWriter::create(dir / "transcript.ndjson");
  ASSERT_TRUE(writer);
  ASSERT_TRUE(writer->append(Direction::client, R"({"jsonrpc":"2.0","id":2,"method":"session/start","params":{}})"));
  ASSERT_TRUE(writer->append(Direction::server, R"({"jsonrpc":"2.0","id":2,"result":{"session":{"sessionId":")" +
                                                    session + R"(","title":")" + title + R"("}}})"));
}

// corpus/{eq,div,rej} with candidates: eq differs at the normalized path only.
std::vector<Candidate> corpus(const TempDir& tmp) {
  write_scenario(tmp / "corpus" / "eq", "eq", "s1", "a");
  write_scenario(tmp / "corpus" / "eq" / ".pending", "eq", "s2", "a");
  write_scenario(tmp / "corpus" / "div", "div", "s1", "b");
  write_scenario(tmp / "corpus" / "div" / ".pending", "div", "s1", "B");
  write_scenario(tmp / "corpus" / "rej", "rej", "s1", "c");
  write_scenario(tmp / "corpus" / "rej" / ".pending", "rej", "s1", "C");
  write_scenario(tmp / "corpus" / "none", "none", "s1", "d");
  auto found = find_candidates({tmp / "corpus"});
  EXPECT_TRUE(found) << (found ? "" : found.error().render());
  return found ? *found : std::vector<Candidate>{};
}

std::string server_title(const fs::path& dir) {
  auto frames = read_transcript(dir / "transcript.ndjson");
  EXPECT_TRUE(frames);
  return frames->back().raw;
}

TEST(Review, FindsCandidatesInCorpusOrder) {
  TempDir tmp;
  auto candidates = corpus(tmp);
  ASSERT_EQ(candidates.size(), 3u);
  EXPECT_EQ(candidates[0].id(), "corpus/div");
  EXPECT_EQ(candidates[1].id(), "corpus/eq");
  EXPECT_EQ(candidates[2].id(), "corpus/rej");
  auto one = find_candidates({tmp / "corpus" / "eq", tmp / "corpus"});  // a scenario reached twice counts once
  ASSERT_TRUE(one);
  EXPECT_EQ(one->size(), 3u);
  EXPECT_EQ((*one)[0].id(), "corpus/eq");
}

TEST(Review, InteractiveDecisionsAreApplied) {
  TempDir tmp;
  auto candidates = corpus(tmp);
  // div: accept, an empty cite refused; eq: accept; rej: reject.
  ScriptedTerminal terminal({"a", "", "spec 1", "because", "https://x/1", "a", "r"});
  ReviewSummary summary = run_review(candidates, terminal, {});
  EXPECT_EQ(summary.count("accepted"), 2u);
  EXPECT_EQ(summary.count("rejected"), 1u);
  EXPECT_EQ(summary.pending(), 0u);
  EXPECT_NE(terminal.shown.find("cite cannot be empty."), std::string::npos);
  EXPECT_NE(terminal.shown.find("[1/3] corpus/div"), std::string::npos);
  EXPECT_NE(terminal.shown.find("result.session.title"), std::string::npos) << terminal.shown;  // the path-level diff
  EXPECT_EQ(terminal.prompts[0], "divergent: accept (with a justification), reject, skip, quit? [a/r/s/q] ");
  EXPECT_EQ(terminal.prompts[5], "equivalent: accept, reject, skip, quit? [a/r/s/q] ");

  EXPECT_NE(server_title(tmp / "corpus" / "div").find("\"B\""), std::string::npos);
  auto manifest = read_manifest(tmp / "corpus" / "div" / "manifest.json");
  ASSERT_TRUE(manifest);
  ASSERT_TRUE(manifest->manifest.regeneration_justification);
  EXPECT_EQ(manifest->manifest.regeneration_justification->cite, "spec 1");
  EXPECT_EQ(manifest->manifest.regeneration_justification->tracking_issue, "https://x/1");
  EXPECT_EQ(manifest->manifest.provenance, "host-generated");
  EXPECT_NE(server_title(tmp / "corpus" / "eq").find("s2"), std::string::npos);
  EXPECT_NE(server_title(tmp / "corpus" / "rej").find("\"c\""), std::string::npos);
  for (const char* name : {"div", "eq", "rej"}) EXPECT_FALSE(fs::exists(tmp / "corpus" / name / ".pending")) << name;
}

TEST(Review, SkipAndQuitLeaveCandidatesPendingAndEndOfInputQuits) {
  TempDir tmp;
  auto candidates = corpus(tmp);
  ScriptedTerminal terminal({"s", "q"});
  ReviewSummary summary = run_review(candidates, terminal, {});
  EXPECT_TRUE(summary.quit);
  EXPECT_EQ(summary.pending(), 3u);
  EXPECT_EQ(terminal.prompts.size(), 2u);
  ScriptedTerminal eof({"a", "spec"});  // input ends during the justification: nothing accepted
  summary = run_review(candidates, eof, {});
  EXPECT_TRUE(summary.quit);
  EXPECT_EQ(summary.pending(), 3u);
  EXPECT_NE(server_title(tmp / "corpus" / "div").find("\"b\""), std::string::npos);
}

TEST(Review, BulkActionsAndAcceptRules) {
  TempDir tmp;
  auto candidates = corpus(tmp);
  ReviewSummary listed = run_bulk(candidates, BulkAction::list, {});
  EXPECT_EQ(listed.pending(), 3u);
  ASSERT_TRUE(listed.entries[0].verdict);
  EXPECT_EQ(*listed.entries[0].verdict, Verdict::divergent);
  EXPECT_NE(listed.entries[0].first_difference.find(":2: divergent"), std::string::npos) << listed.entries[0].first_difference;

  Justification empty{"cite", " ", "issue"};
  auto refused = accept(candidates[0], Verdict::divergent, &empty);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().render().find("regenerationJustification.rationale is empty"), std::string::npos);
  EXPECT_FALSE(accept(candidates[0], Verdict::divergent));

  ReviewSummary accepted = run_bulk(candidates, BulkAction::accept_equivalent, {});
  EXPECT_EQ(accepted.count("accepted"), 1u);
  EXPECT_EQ(accepted.pending(), 2u);
  ReviewSummary rejected = run_bulk(*find_candidates({tmp / "corpus"}), BulkAction::reject_all, {});
  EXPECT_EQ(rejected.count("rejected"), 2u);
  EXPECT_TRUE(find_candidates({tmp / "corpus"})->empty());
}

TEST(Review, StoreAndDiscardACandidate) {
  TempDir tmp;
  write_scenario(tmp / "s", "s", "s1", "a");
  write_scenario(tmp / "rec", "s", "s1", "b");
  auto stored = store_candidate(tmp / "s", tmp / "rec");
  ASSERT_TRUE(stored) << stored.error().render();
  EXPECT_EQ(*stored, tmp / "s" / ".pending");
  EXPECT_TRUE(fs::exists(tmp / "s" / ".pending" / "transcript.ndjson"));
  write_scenario(tmp / "rec2", "s", "s1", "c");
  ASSERT_TRUE(store_candidate(tmp / "s", tmp / "rec2"));  // replaces the old one
  EXPECT_NE(server_title(tmp / "s" / ".pending").find("\"c\""), std::string::npos);
  EXPECT_TRUE(*discard_candidate(tmp / "s"));
  EXPECT_FALSE(*discard_candidate(tmp / "s"));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(tmp / "s")) ++entries;
  EXPECT_EQ(entries, 2u);  // no staging folder left behind
}

}  // namespace
}  // namespace msptk::review
