// The review loop with a scripted Terminal: decisions applied to candidate folders (accept
// equivalent, justify divergent with empty answers refused, reject, skip, quit), the bulk
// actions, and the rules of accept() itself — under faults too: a full disk between the
// rewrite's two writes, a crash before its exchange, a candidate swapped while the prompt waits,
// an incomplete capture, another scenario's candidate, a fingerprint the host changed.
#include "msptk/review/session.hpp"
#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/writer.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
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
    if (on_ask) on_ask(prompts.size());  // e.g. a `check --update` beside it swaps a candidate
    if (answers_.empty()) return std::nullopt;
    std::string a = answers_.front();
    answers_.pop_front();
    return a;
  }
  std::string shown;
  std::vector<std::string> prompts;
  std::function<void(std::size_t)> on_ask;  // called with the prompt's number (1-based) before it is answered

 private:
  std::deque<std::string> answers_;
};

const char* kManifest = R"({"kind":"mspTranscript","schemaVersion":1,"scenario":"%s","provenance":"hand-authored",
"fingerprint":"sha256:%s","viewSchemaVersion":1,"serverConfig":{"frameLimitBytes":10485760},"transports":["stdio"],
"normalize":["result.session.sessionId"],"seeds":{"idSeed":7,"clockStartMs":1754590931000},"source":[]})";

void write_scenario(const fs::path& dir, const std::string& name, const std::string& session, const std::string& title,
                    char fingerprint = 'a') {
  fs::create_directories(dir);
  if (dir.filename() == kPendingFolder) test::write_text(dir / kCandidateRecord, R"({"complete":true})" "\n");
  char manifest[1024];
  std::snprintf(manifest, sizeof manifest, kManifest, name.c_str(), std::string(64, fingerprint).c_str());
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

  auto assessment = assess(candidates[0]);
  ASSERT_TRUE(assessment);
  for (const std::string blank : {"", " ", "\t", " \t\r\n"}) {  // blank is empty
    Justification empty{"cite", blank, "issue", {}};
    auto refused = accept(candidates[0], *assessment, &empty);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().render().find("regenerationJustification.rationale is empty"), std::string::npos);
  }
  EXPECT_FALSE(accept(candidates[0], *assessment));

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
  auto stored = store_candidate(tmp / "s", tmp / "rec", CandidateCapture{true, ""});
  ASSERT_TRUE(stored) << stored.error().render();
  EXPECT_EQ(*stored, tmp / "s" / ".pending");
  EXPECT_TRUE(fs::exists(tmp / "s" / ".pending" / "transcript.ndjson"));
  write_scenario(tmp / "rec2", "s", "s1", "c");
  ASSERT_TRUE(store_candidate(tmp / "s", tmp / "rec2", CandidateCapture{false, "t:4: timed out"}));  // replaces the old one
  EXPECT_NE(server_title(tmp / "s" / ".pending").find("\"c\""), std::string::npos);
  EXPECT_EQ(test::read_text(tmp / "s" / ".pending" / kCandidateRecord),
            "{\"complete\":false,\"problem\":\"t:4: timed out\"}\n");
  EXPECT_TRUE(*discard_candidate(tmp / "s"));
  EXPECT_FALSE(*discard_candidate(tmp / "s"));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(tmp / "s")) ++entries;
  EXPECT_EQ(entries, 2u);  // no staging folder left behind
}

// The golden folder's files, by name (every byte), and what else is in its parent.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = test::read_text(e.path());
  return files;
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(Review, AFullDiskBetweenTheRewritesTwoWritesLeavesTheGoldenEntirelyOld) {
  TempDir tmp;
  auto candidates = corpus(tmp);
  const fs::path div = tmp / "corpus" / "div";
  const auto before = snapshot(div);
  ReviewOptions options;
  std::vector<std::string> written;
  options.rewrite.write = [&](const fs::path& file, std::string_view bytes, fs::perms perms) -> Result<void> {
    written.push_back(file.filename().string());
    if (file.filename() == "manifest.json")  // the transcript went through; then the disk is full
      return Error::unreadable(file.string(), "cannot write: No space left on device");
    return write_file_atomic(file, bytes, perms);
  };
  ScriptedTerminal terminal({"a", "spec 1", "because", "https://x/1", "q"});
  ReviewSummary summary = run_review(candidates, terminal, options);
  EXPECT_EQ((std::vector<std::string>{"transcript.ndjson", "manifest.json"}), written);
  ASSERT_EQ(summary.entries[0].decision, "pending");
  ASSERT_TRUE(summary.entries[0].failure);
  EXPECT_NE(summary.entries[0].failure->render().find("No space left on device"), std::string::npos);
  EXPECT_EQ(snapshot(div), before);  // the old transcript with the old manifest, the candidate still pending
  EXPECT_EQ(names_in(tmp / "corpus"), (std::vector<std::string>{"div", "eq", "none", "rej"}));  // no staging left
}

TEST(Review, ACrashBeforeTheExchangeLeavesTheGoldenEntirelyOldAndAcceptingMakesItEntirelyNew) {
  TempDir tmp;
  auto candidates = corpus(tmp);
  const fs::path div = tmp / "corpus" / "div";
  const auto before = snapshot(div);
  const std::string candidate_transcript = test::read_text(div / ".pending" / "transcript.ndjson");
  auto assessment = assess(candidates[0]);
  ASSERT_TRUE(assessment) << assessment.error().render();
  Justification why{"spec 1", "because", "https://x/1", {}};
  FolderRewriteSeams crash;
  crash.exchange = [&](const fs::path& staged, const fs::path& folder) -> Result<void> {
    // Everything new is staged, in one folder: the transcript, its justified manifest, no candidate.
    EXPECT_EQ(test::read_text(staged / "transcript.ndjson"), candidate_transcript);
    EXPECT_NE(test::read_text(staged / "manifest.json").find("https://x/1"), std::string::npos);
    EXPECT_FALSE(fs::exists(staged / ".pending"));
    EXPECT_EQ(folder, fs::canonical(div));
    return Error::unreadable(folder.string(), "killed before the exchange");
  };
  ASSERT_FALSE(accept(candidates[0], *assessment, &why, crash));
  EXPECT_EQ(snapshot(div), before);
  EXPECT_EQ(names_in(tmp / "corpus"), (std::vector<std::string>{"div", "eq", "none", "rej"}));

  // The real exchange: the transcript and its justification together, the candidate gone with it.
  ASSERT_TRUE(accept(candidates[0], *assessment, &why));
  EXPECT_EQ(test::read_text(div / "transcript.ndjson"), candidate_transcript);
  auto manifest = read_manifest(div / "manifest.json");
  ASSERT_TRUE(manifest);
  ASSERT_TRUE(manifest->manifest.regeneration_justification);
  EXPECT_EQ(manifest->manifest.regeneration_justification->rationale, "because");
  EXPECT_FALSE(fs::exists(div / ".pending"));
  EXPECT_EQ(names_in(tmp / "corpus"), (std::vector<std::string>{"div", "eq", "none", "rej"}));
}

TEST(Review, ACandidateSwappedWhileThePromptWaitsIsNotAccepted) {
  TempDir tmp;
  auto candidates = corpus(tmp);
  const fs::path eq = tmp / "corpus" / "eq";
  const auto before = snapshot(eq);
  // eq is shown as equivalent (another session id); while the prompt waits a `check --update`
  // beside it leaves another candidate, which changes the title.
  ScriptedTerminal terminal({"s", "a", "q"});
  terminal.on_ask = [&](std::size_t prompt) {
    if (prompt == 2) write_scenario(eq / ".pending", "eq", "s2", "changed under the prompt");
  };
  ReviewSummary summary = run_review(candidates, terminal, {});
  ASSERT_EQ(summary.entries[1].candidate.id(), "corpus/eq");
  EXPECT_EQ(summary.entries[1].decision, "pending");
  ASSERT_TRUE(summary.entries[1].failure);
  EXPECT_EQ(summary.entries[1].failure->rule, "review.changed");
  EXPECT_NE(summary.entries[1].error.find("no longer the one assessed and shown"), std::string::npos);
  auto after = snapshot(eq);
  EXPECT_EQ(after["transcript.ndjson"], before.at("transcript.ndjson"));
  EXPECT_EQ(after["manifest.json"], before.at("manifest.json"));

  // The golden replaced under the prompt (a regen beside it) is refused too.
  write_scenario(eq / ".pending", "eq", "s2", "a");  // an equivalent candidate again
  auto again = find_candidates({eq});
  ASSERT_TRUE(again);
  auto assessment = assess(again->front());
  ASSERT_TRUE(assessment);
  write_scenario(eq, "eq", "s1", "regenerated");
  auto refused = accept(again->front(), *assessment);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().rule, "review.changed");
}

TEST(Review, AnIncompleteCaptureIsNeverAcceptedAndSaysWhy) {
  TempDir tmp;
  auto candidates = corpus(tmp);
  const fs::path div = tmp / "corpus" / "div";
  const auto before = snapshot(div);
  Justification why{"spec 1", "because", "https://x/1", {}};
  test::write_text(div / ".pending" / kCandidateRecord,
                   R"({"complete":false,"problem":"transcript.ndjson:4: timed out after 10000 ms waiting for x"})");
  ScriptedTerminal terminal({"a", "q"});
  ReviewSummary summary = run_review({candidates[0]}, terminal, {});
  EXPECT_NE(terminal.shown.find("cannot be accepted: the capture is incomplete: the replay stopped before the "
                                "transcript's end (transcript.ndjson:4: timed out"),
            std::string::npos)
      << terminal.shown;
  EXPECT_EQ(summary.pending(), 1u);
  auto assessment = assess(candidates[0]);
  ASSERT_TRUE(assessment);
  auto refused = accept(candidates[0], *assessment, &why);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().rule, "review.refused");
  EXPECT_NE(refused.error().message.find("a capture cut short is never accepted"), std::string::npos);

  // A divergent candidate that does not say it is complete (an older check --update) is refused too.
  fs::remove(div / ".pending" / kCandidateRecord);
  assessment = assess(candidates[0]);
  ASSERT_TRUE(assessment);
  refused = accept(candidates[0], *assessment, &why);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("does not say its capture is complete"), std::string::npos);
  auto expected = before;
  expected.erase(std::string(".pending/") + kCandidateRecord);
  EXPECT_EQ(snapshot(div), expected);
}

TEST(Review, AcceptingKeepsThePinRefusesAnotherScenarioAndShowsAFingerprintDifference) {
  TempDir tmp;
  write_scenario(tmp / "corpus" / "eq", "eq", "s1", "a");
  write_scenario(tmp / "corpus" / "eq" / ".pending", "eq", "s2", "a", 'b');  // the host reports another fingerprint
  write_scenario(tmp / "corpus" / "other", "other", "s1", "a");
  write_scenario(tmp / "corpus" / "other" / ".pending", "eq", "s2", "a");  // a recording of eq left under other
  auto candidates = find_candidates({tmp / "corpus"});
  ASSERT_TRUE(candidates);
  ASSERT_EQ(candidates->size(), 2u);
  ScriptedTerminal terminal({"a", "a", "q"});
  ReviewSummary summary = run_review(*candidates, terminal, {});
  EXPECT_NE(terminal.shown.find("fingerprint: the host reported sha256:" + std::string(64, 'b') +
                                ", the golden is pinned to sha256:" + std::string(64, 'a')),
            std::string::npos)
      << terminal.shown;
  EXPECT_EQ(summary.entries[0].decision, "accepted");
  auto manifest = read_manifest(tmp / "corpus" / "eq" / "manifest.json");
  ASSERT_TRUE(manifest);
  EXPECT_EQ(manifest->manifest.fingerprint, "sha256:" + std::string(64, 'a'));  // the pin is kept
  EXPECT_EQ(manifest->manifest.provenance, "host-generated");

  EXPECT_NE(terminal.shown.find("cannot be accepted: the candidate's manifest names scenario \"eq\", not \"other\""),
            std::string::npos)
      << terminal.shown;
  EXPECT_EQ(summary.entries[1].decision, "pending");
  auto other = find_candidates({tmp / "corpus" / "other"});
  ASSERT_TRUE(other);
  auto assessment = assess(other->front());
  ASSERT_TRUE(assessment);
  auto refused = accept(other->front(), *assessment);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().rule, "review.refused");
  ReviewSummary bulk = run_bulk(*other, BulkAction::accept_equivalent, {});
  ASSERT_TRUE(bulk.entries[0].failure);  // the CLI reports it on stderr, exit 3
  EXPECT_EQ(bulk.pending(), 1u);
  EXPECT_NE(server_title(tmp / "corpus" / "other").find("s1"), std::string::npos);
}

}  // namespace
}  // namespace msptk::review
