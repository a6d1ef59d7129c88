// End-to-end tests of the review loop with real processes: golden scenarios recorded by
// `msptk record`, candidates left by `msptk check --update` against a scripted host that answers
// differently, then `msptk review` — non-interactively, and interactively FOR REAL inside a tmux
// session (send-keys, capture-pane): accept one equivalent, justify one divergent, reject one.
#include "fault_support.hpp"

#include "msptk/transcript/manifest.hpp"

#include <fmt/format.h>

#include <thread>

namespace msptk::e2e {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using test::TempDir;

const std::string kFingerprint = "sha256:" + std::string(64, 'd');

std::vector<WireFrame> session(const std::string& session_id, const std::string& title) {
  return {
      {Direction::client, R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"0"}}})"},
      {Direction::server, R"({"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"fake"},"schema":{"version":1,"fingerprint":")" +
                              kFingerprint + R"("}}})"},
      {Direction::client, R"({"jsonrpc":"2.0","method":"initialized"})"},
      {Direction::client, R"({"jsonrpc":"2.0","id":2,"method":"session/start","params":{"title":"t"}})"},
      {Direction::server, R"({"jsonrpc":"2.0","id":2,"result":{"session":{"sessionId":")" + session_id +
                              R"(","title":")" + title + R"("}}})"},
  };
}

// corpus/<name>/ recorded from `golden`, and corpus/<name>/host.ndjson: what the host will say
// when checked.
void make_scenario(const TempDir& tmp, const std::string& name, const std::vector<WireFrame>& golden,
                   const std::vector<WireFrame>& later) {
  const fs::path script = tmp / (name + ".ndjson");
  write_transcript(script, golden);
  const fs::path dir = tmp / "corpus" / name;
  CommandRun run = run_command({fake_client_bin(), "--transcript", script.string(), "--", msptk_bin(), "record",
                                "--out", dir.string(), "--normalize", "result.session.sessionId", "--",
                                fake_host_bin(), "--transcript", script.string()});
  ASSERT_EQ(run.exit.code, 0) << run.err;
  write_transcript(dir / "host.ndjson", later);
}

// Three scenarios and their candidates: a-equivalent (another session id, a normalized path),
// b-divergent (another title), c-rejected (another title).
void make_corpus_with_candidates(const TempDir& tmp) {
  make_scenario(tmp, "a-equivalent", session("s1", "one"), session("s2", "one"));
  make_scenario(tmp, "b-divergent", session("s1", "two"), session("s1", "two, renamed"));
  make_scenario(tmp, "c-rejected", session("s1", "three"), session("s1", "three?"));
  make_scenario(tmp, "d-identical", session("s1", "four"), session("s1", "four"));
  CommandRun check = run_command({msptk_bin(), "check", (tmp / "corpus").string(), "--update", "--host",
                                  fake_host_bin() + " --transcript {scenario}/host.ndjson"});
  EXPECT_EQ(check.exit.code, 1) << check.out << check.err;  // the divergent ones fail
  EXPECT_NE(check.out.find("PASS corpus/a-equivalent [candidate: "), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("FAIL corpus/b-divergent"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("PASS corpus/d-identical\n"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("3 candidates pending review: msptk review " + (tmp / "corpus").string()), std::string::npos)
      << check.out;
  for (const char* name : {"a-equivalent", "b-divergent", "c-rejected"})
    EXPECT_TRUE(fs::exists(tmp / "corpus" / name / ".pending" / "transcript.ndjson")) << name;
  EXPECT_FALSE(fs::exists(tmp / "corpus" / "d-identical" / ".pending")) << "identical recordings leave nothing";
}

TEST(ReviewE2E, CheckUpdateLeavesCandidatesThatValidateAndCheckIgnore) {
  TempDir tmp;
  make_corpus_with_candidates(tmp);
  CommandRun validate = run_command({msptk_bin(), "validate", (tmp / "corpus").string()});
  EXPECT_NE(validate.out.find("4 scenarios"), std::string::npos) << validate.out << validate.err;
  CommandRun list = run_command({msptk_bin(), "review", (tmp / "corpus").string()});  // stdin is not a terminal
  EXPECT_EQ(list.exit.code, 1) << list.err;
  EXPECT_EQ(list.out.substr(0, list.out.find('\n')), "PENDING corpus/a-equivalent: equivalent");
  EXPECT_NE(list.out.find("PENDING corpus/b-divergent: divergent ("), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("3 candidates: 0 accepted, 0 rejected, 3 pending"), std::string::npos) << list.out;

  CommandRun json_list = run_command({msptk_bin(), "review", (tmp / "corpus").string(), "--format", "json"});
  EXPECT_EQ(json_list.exit.code, 1);
  json::value doc = json::parse(json_list.out);
  EXPECT_EQ(doc.at("pending"), 3);
  EXPECT_EQ(doc.at("candidates").at(1).at("verdict"), "divergent");

  CommandRun accept = run_command({msptk_bin(), "review", (tmp / "corpus").string(), "--accept-equivalent"});
  EXPECT_EQ(accept.exit.code, 1) << accept.out;  // the divergent ones stay pending
  EXPECT_NE(accept.out.find("ACCEPTED corpus/a-equivalent: equivalent"), std::string::npos) << accept.out;
  EXPECT_EQ(read_wire_frames(tmp / "corpus" / "a-equivalent" / "transcript.ndjson"), session("s2", "one"));
  EXPECT_FALSE(fs::exists(tmp / "corpus" / "a-equivalent" / ".pending"));

  CommandRun reject = run_command({msptk_bin(), "review", (tmp / "corpus").string(), "--reject-all"});
  EXPECT_EQ(reject.exit.code, 0) << reject.out;
  EXPECT_FALSE(fs::exists(tmp / "corpus" / "b-divergent" / ".pending"));
  EXPECT_EQ(read_wire_frames(tmp / "corpus" / "b-divergent" / "transcript.ndjson"), session("s1", "two"));
  CommandRun none = run_command({msptk_bin(), "review", (tmp / "corpus").string()});
  EXPECT_EQ(none.exit.code, 0);
  EXPECT_EQ(none.out, "no candidates pending review (msptk check CORPUS --update leaves them)\n");
}

// session() and a second session/start after it: a divergence in the first leaves a frame to
// record after it.
std::vector<WireFrame> two_sessions(const std::string& title) {
  std::vector<WireFrame> frames = session("s1", title);
  frames.push_back({Direction::client, R"({"jsonrpc":"2.0","id":3,"method":"session/start","params":{"title":"u"}})"});
  frames.push_back({Direction::server, R"({"jsonrpc":"2.0","id":3,"result":{"session":{"sessionId":"s9","title":"last"}}})"});
  return frames;
}

TEST(ReviewE2E, CheckUpdateRecordsPastTheFirstDivergenceAndReviewRefusesACaptureCutShort) {
  TempDir tmp;
  make_scenario(tmp, "e-long", two_sessions("five"), two_sessions("five, renamed"));
  CommandRun check = run_command({msptk_bin(), "check", (tmp / "corpus").string(), "--update", "--host",
                                  fake_host_bin() + " --transcript {scenario}/host.ndjson"});
  EXPECT_EQ(check.exit.code, 1) << check.out << check.err;
  const fs::path pending = tmp / "corpus" / "e-long" / ".pending";
  // The whole session, the frames after the divergent one included.
  EXPECT_EQ(read_wire_frames(pending / "transcript.ndjson"), two_sessions("five, renamed"));
  EXPECT_EQ(test::read_text(pending / "candidate.json"), "{\"complete\":true}\n");

  // A host that dies in the middle of its second frame: the candidate is cut short, and says so.
  make_scenario(tmp, "f-dies", two_sessions("six"), two_sessions("six, renamed"));
  fs::remove_all(pending);
  CommandRun dies = run_command({msptk_bin(), "check", (tmp / "corpus" / "f-dies").string(), "--update", "--host",
                                 fake_host_bin() + " --transcript {scenario}/host.ndjson --die-mid-frame 2"});
  EXPECT_NE(dies.exit.code, 0) << dies.out << dies.err;
  const std::string record = test::read_text(tmp / "corpus" / "f-dies" / ".pending" / "candidate.json");
  EXPECT_NE(record.find("\"complete\":false"), std::string::npos) << record;
  CommandRun list = run_command({msptk_bin(), "review", (tmp / "corpus").string(), "--list"});
  EXPECT_EQ(list.exit.code, 1) << list.err;
  EXPECT_NE(list.out.find("PENDING corpus/f-dies: divergent"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("  cannot be accepted: the capture is incomplete: the replay stopped before the transcript's "
                          "end ("),
            std::string::npos)
      << list.out;
}

TEST(ReviewE2E, ADecisionThatCannotBeMadeIsAnErrorOnStderrWithExit3AndTheReportStays) {
  TempDir tmp;
  make_corpus_with_candidates(tmp);
  // a-equivalent's candidate, as if another scenario's recording had been left there.
  const fs::path manifest = tmp / "corpus" / "a-equivalent" / ".pending" / "manifest.json";
  std::string text = test::read_text(manifest);
  text.replace(text.find("\"a-equivalent\""), 14, "\"zz-elsewhere\"");
  test::write_text(manifest, text);
  const std::string golden = test::read_text(tmp / "corpus" / "a-equivalent" / "transcript.ndjson");
  CommandRun accept = run_command({msptk_bin(), "review", (tmp / "corpus").string(), "--accept-equivalent"});
  EXPECT_EQ(accept.exit.code, 3) << accept.out << accept.err;
  EXPECT_NE(accept.out.find("PENDING corpus/a-equivalent: equivalent: error: "), std::string::npos) << accept.out;
  EXPECT_NE(accept.out.find("3 candidates: 0 accepted, 0 rejected, 3 pending"), std::string::npos) << accept.out;
  EXPECT_EQ(accept.err.rfind("msptk: error: ", 0), 0u) << accept.err;
  EXPECT_NE(accept.err.find("names scenario \"zz-elsewhere\", not \"a-equivalent\""), std::string::npos) << accept.err;
  EXPECT_NE(accept.err.find(" [review.refused]\n"), std::string::npos) << accept.err;
  EXPECT_EQ(test::read_text(tmp / "corpus" / "a-equivalent" / "transcript.ndjson"), golden);
}

// A tmux server of our own (its own socket), killed at the end.
class Tmux {
 public:
  explicit Tmux(std::string socket) : socket_(std::move(socket)) {}
  ~Tmux() { run({"kill-server"}); }
  CommandRun run(std::vector<std::string> args) const {
    std::vector<std::string> argv = {tmux_path(), "-L", socket_};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv);
  }
  std::string screen() const { return run({"capture-pane", "-p", "-J", "-t", "review", "-S", "-500"}).out; }
  // Waits until the screen holds `text` `times` times.
  bool wait_for(const std::string& text, std::size_t times = 1) const {
    for (int i = 0; i < 200; ++i) {
      const std::string s = screen();
      std::size_t count = 0;
      for (std::size_t at = s.find(text); at != std::string::npos; at = s.find(text, at + 1)) ++count;
      if (count >= times) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "the screen never showed \"" << text << "\" " << times << " time(s):\n" << screen();
    return false;
  }
  void type(const std::string& line) const {
    if (!line.empty()) run({"send-keys", "-t", "review", "-l", line});
    run({"send-keys", "-t", "review", "Enter"});
  }
  static std::string tmux_path() {
    auto found = process::resolve_program("tmux");
    return found ? found->string() : "";
  }

 private:
  std::string socket_;
};

TEST(ReviewE2E, InteractiveReviewUnderTmuxAcceptsJustifiesAndRejects) {
  if (Tmux::tmux_path().empty()) GTEST_SKIP() << "tmux is not installed (scripts/install-deps installs it): the "
                                                 "interactive review test needs a real terminal";
  TempDir tmp;
  make_corpus_with_candidates(tmp);
  Tmux tmux(fmt::format("msptk-review-test-{}", ::getpid()));
  const std::string command = fmt::format("PAGER=cat '{}' review '{}'; echo REVIEW-EXIT:$?; sleep 60", msptk_bin(),
                                          (tmp / "corpus").string());
  CommandRun started = tmux.run({"new-session", "-d", "-s", "review", "-x", "200", "-y", "60", command});
  ASSERT_EQ(started.exit.code, 0) << started.err;

  // 1: equivalent — accept.
  ASSERT_TRUE(tmux.wait_for("[1/3] corpus/a-equivalent"));
  ASSERT_TRUE(tmux.wait_for("equivalent: accept, reject, skip, quit? [a/r/s/q]"));
  tmux.type("a");
  // 2: divergent — accept with a justification; an empty answer is refused.
  ASSERT_TRUE(tmux.wait_for("[2/3] corpus/b-divergent"));
  EXPECT_TRUE(tmux.wait_for("result.session.title"));
  ASSERT_TRUE(tmux.wait_for("divergent: accept (with a justification), reject, skip, quit? [a/r/s/q]"));
  tmux.type("x");
  ASSERT_TRUE(tmux.wait_for("Answer a (accept), r (reject), s (skip) or q (quit)."));
  tmux.type("a");
  ASSERT_TRUE(tmux.wait_for("cite: "));
  tmux.type("");
  ASSERT_TRUE(tmux.wait_for("cite cannot be empty."));
  tmux.type("spec 12 section 3: titles keep their suffix");
  ASSERT_TRUE(tmux.wait_for("rationale: "));
  tmux.type("the host now appends the rename to the title");
  ASSERT_TRUE(tmux.wait_for("trackingIssue: "));
  tmux.type("https://example.org/issues/77");
  // 3: divergent — reject.
  ASSERT_TRUE(tmux.wait_for("[3/3] corpus/c-rejected"));
  ASSERT_TRUE(tmux.wait_for("[a/r/s/q]", 3));
  tmux.type("r");
  ASSERT_TRUE(tmux.wait_for("REVIEW-EXIT:0"));
  const std::string screen = tmux.screen();
  EXPECT_NE(screen.find("3 candidates: 2 accepted, 1 rejected, 0 pending"), std::string::npos) << screen;

  const fs::path corpus = tmp / "corpus";
  EXPECT_EQ(read_wire_frames(corpus / "a-equivalent" / "transcript.ndjson"), session("s2", "one"));
  EXPECT_EQ(read_wire_frames(corpus / "b-divergent" / "transcript.ndjson"), session("s1", "two, renamed"));
  EXPECT_EQ(read_wire_frames(corpus / "c-rejected" / "transcript.ndjson"), session("s1", "three"));
  for (const char* name : {"a-equivalent", "b-divergent", "c-rejected"})
    EXPECT_FALSE(fs::exists(corpus / name / ".pending")) << name;
  auto justified = read_manifest(corpus / "b-divergent" / "manifest.json");
  ASSERT_TRUE(justified);
  EXPECT_TRUE(justified->problems.empty());
  ASSERT_TRUE(justified->manifest.regeneration_justification);
  EXPECT_EQ(justified->manifest.regeneration_justification->cite, "spec 12 section 3: titles keep their suffix");
  EXPECT_EQ(justified->manifest.regeneration_justification->rationale, "the host now appends the rename to the title");
  EXPECT_EQ(justified->manifest.regeneration_justification->tracking_issue, "https://example.org/issues/77");
  EXPECT_EQ(justified->manifest.provenance, "host-generated");
  auto equivalent = read_manifest(corpus / "a-equivalent" / "manifest.json");
  ASSERT_TRUE(equivalent);
  EXPECT_FALSE(equivalent->manifest.regeneration_justification);
  // The accepted corpus checks clean against the same host.
  CommandRun check = run_command({msptk_bin(), "check", (corpus / "a-equivalent").string(), (corpus / "b-divergent").string(),
                                  "--host", fake_host_bin() + " --transcript {scenario}/host.ndjson"});
  EXPECT_EQ(check.exit.code, 0) << check.out << check.err;
}

}  // namespace
}  // namespace msptk::e2e

namespace msptk::e2e {
namespace {

// The hidden entries msptk may stage in a corpus folder or a scenario folder.
std::vector<std::string> staging_debris(const fs::path& corpus) {
  std::vector<std::string> found;
  std::vector<fs::path> places = {corpus};
  for (const auto& entry : fs::directory_iterator(corpus))
    if (entry.is_directory() && entry.path().filename().string()[0] != '.') places.push_back(entry.path());
  for (const fs::path& place : places)
    for (const auto& entry : fs::directory_iterator(place)) {
      const std::string name = entry.path().filename().string();
      if (name.find(".msptk-") != std::string::npos || name.find(".rewrite-") != std::string::npos ||
          name.find(".pending-new") != std::string::npos)
        found.push_back(entry.path().string());
    }
  return found;
}

TEST(ReviewDebrisE2E, APendingOnAnotherFileSystemIsRefusedAndNothingIsStaged) {
  TempDir tmp;
  make_scenario(tmp, "a-equivalent", session("s1", "one"), session("s2", "one"));
  CommandRun check = run_command({msptk_bin(), "check", (tmp / "corpus").string(), "--update", "--host",
                                  fake_host_bin() + " --transcript {scenario}/host.ndjson"});
  ASSERT_EQ(check.exit.code, 0) << check.out << check.err;
  const fs::path scenario = tmp / "corpus" / "a-equivalent";
  const std::string golden = test::read_text(scenario / "transcript.ndjson");
  // The candidate moved onto a tmpfs mounted at .pending.
  fs::rename(scenario / ".pending", tmp / "candidate");
  SmallDisk other(scenario / ".pending");
  if (!other.mounted()) GTEST_SKIP() << "skipped: cannot mount a tmpfs here (" << other.why() << ")";
  fs::copy(tmp / "candidate", scenario / ".pending", fs::copy_options::recursive);

  CommandRun accept = run_command({msptk_bin(), "review", (tmp / "corpus").string(), "--accept-equivalent"});
  EXPECT_EQ(accept.exit.code, 3) << accept.out << accept.err;
  EXPECT_NE(accept.err.find(fmt::format("msptk: error: {}: is on another file system (a mount point)",
                                        (fs::canonical(scenario) / ".pending").string())),
            std::string::npos)
      << accept.err;
  EXPECT_EQ(test::read_text(scenario / "transcript.ndjson"), golden);
  EXPECT_TRUE(fs::exists(scenario / ".pending" / "transcript.ndjson"));  // the candidate stays, for another try
  EXPECT_EQ(staging_debris(tmp / "corpus"), std::vector<std::string>{});
}

TEST(ReviewDebrisE2E, ASymlinkedPendingOnDevShmIsAcceptedAndNothingIsLeftInTheCorpus) {
  if (!fs::is_directory("/dev/shm")) GTEST_SKIP() << "skipped: no /dev/shm";
  TempDir tmp;
  make_scenario(tmp, "a-equivalent", session("s1", "one"), session("s2", "one"));
  CommandRun check = run_command({msptk_bin(), "check", (tmp / "corpus").string(), "--update", "--host",
                                  fake_host_bin() + " --transcript {scenario}/host.ndjson"});
  ASSERT_EQ(check.exit.code, 0) << check.out << check.err;
  const fs::path scenario = tmp / "corpus" / "a-equivalent";
  const fs::path shm = fs::path("/dev/shm") / fmt::format("msptk-review-{}", ::getpid());
  fs::remove_all(shm);
  fs::copy(scenario / ".pending", shm, fs::copy_options::recursive);
  fs::remove_all(scenario / ".pending");
  fs::create_directory_symlink(shm, scenario / ".pending");
  const std::string candidate = test::read_text(shm / "transcript.ndjson");

  CommandRun accept = run_command({msptk_bin(), "review", (tmp / "corpus").string(), "--accept-equivalent"});
  EXPECT_EQ(accept.exit.code, 0) << accept.out << accept.err;
  EXPECT_EQ(test::read_text(scenario / "transcript.ndjson"), candidate);
  EXPECT_FALSE(fs::exists(scenario / ".pending"));
  EXPECT_EQ(staging_debris(tmp / "corpus"), std::vector<std::string>{});
  fs::remove_all(shm);
}

TEST(ReviewDebrisE2E, SigkillDuringAcceptLeavesAWholeScenarioAndTheNextRunSweepsItsStaging) {
  TempDir tmp;
  make_scenario(tmp, "a-equivalent", session("s1", "one"), session("s2", "one"));
  CommandRun check = run_command({msptk_bin(), "check", (tmp / "corpus").string(), "--update", "--host",
                                  fake_host_bin() + " --transcript {scenario}/host.ndjson"});
  ASSERT_EQ(check.exit.code, 0) << check.out << check.err;
  const fs::path scenario = tmp / "corpus" / "a-equivalent";
  // A large file in the golden folder, so that staging it takes long enough to be killed during it.
  test::write_text(scenario / "host-stderr.log", std::string(24 << 20, 'e'));
  const std::string old_golden = test::read_text(scenario / "transcript.ndjson");
  const std::string new_golden = test::read_text(scenario / ".pending" / "transcript.ndjson");
  fs::copy(scenario, tmp / "template", fs::copy_options::recursive);

  int left = 0, runs = 0;
  for (int delay_ms = 0; delay_ms <= 60; delay_ms += 5, ++runs) {
    SCOPED_TRACE(fmt::format("SIGKILL after {} ms", delay_ms));
    fs::remove_all(scenario);
    fs::copy(tmp / "template", scenario, fs::copy_options::recursive);
    test::TempDir scratch;
    Measured killed = run_measured({msptk_bin(), "review", (tmp / "corpus").string(), "--accept-equivalent"}, scratch.path(),
                                   {}, true, std::chrono::seconds(20), SIGKILL, std::chrono::milliseconds(delay_ms));
    ASSERT_FALSE(killed.timed_out);
    const std::string now = test::read_text(scenario / "transcript.ndjson");
    EXPECT_TRUE(now == old_golden || now == new_golden) << "the golden is a mix";
    const auto debris = staging_debris(tmp / "corpus");
    if (!debris.empty()) ++left;
    // The next look at the corpus removes what the killed process left, and says so.
    CommandRun validate = run_command({msptk_bin(), "validate", (tmp / "corpus").string()});
    for (const std::string& path : debris)
      EXPECT_NE(validate.err.find(fmt::format("msptk: note: removed {}: a staging folder left by msptk process ", path)),
                std::string::npos)
          << validate.err;
    EXPECT_EQ(staging_debris(tmp / "corpus"), std::vector<std::string>{});
    CommandRun again = run_command({msptk_bin(), "review", (tmp / "corpus").string(), "--accept-equivalent"});
    EXPECT_EQ(again.exit.code, 0) << again.out << again.err;
    EXPECT_EQ(test::read_text(scenario / "transcript.ndjson"), new_golden);
    EXPECT_EQ(staging_debris(tmp / "corpus"), std::vector<std::string>{});
  }
  std::cout << "[ debris ] " << left << " of " << runs << " SIGKILLs during accept left a staging folder; all swept\n";
}

}  // namespace
}  // namespace msptk::e2e
