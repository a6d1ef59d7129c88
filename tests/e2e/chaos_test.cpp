// End-to-end tests of --chaos with real processes: msptk's own binaries and the fake peers pass
// under every perturbation over every scenario of both corpora (the public one skipped with a
// message where it is absent), a recording made under chaos is identical to the scenario and
// says so in its capture, close-after cuts a run on purpose and fails a peer that hangs, and a
// peer that only breaks under chaos is told the perturbation in force.
//
// The corpus sweep uses one fast combined spec (every write perturbation at once, pauses of at
// most 1 ms) and close-after separately; each perturbation alone runs over corpus/.
#include "e2e_support.hpp"

#include "msptk/transcript/manifest.hpp"

#include <fmt/format.h>

namespace msptk::e2e {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using test::TempDir;

constexpr const char* kReplaySweep = "split,merge,cr,delay=1,stall=3";
constexpr const char* kFixtureSweep = "split,merge,delay=1,stall=3";

bool replayable(const fs::path& scenario) {
  auto m = read_manifest(scenario / "manifest.json");
  return m && !m->manifest.is_sdk_tolerance();
}

std::vector<fs::path> scenarios_of(const fs::path& corpus) {
  std::vector<fs::path> out;
  if (!fs::is_directory(corpus)) return out;
  for (const auto& e : fs::directory_iterator(corpus))
    if (e.is_directory() && fs::exists(e.path() / "manifest.json")) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<fs::path> own_scenarios() { return scenarios_of(test::source_dir() / "corpus"); }

std::vector<fs::path> all_scenarios() {
  std::vector<fs::path> out = own_scenarios();
  if (!fs::is_directory(test::shared_transcripts())) {
    std::cerr << "[ NOTE ] public MSP corpus not found at " << test::shared_transcripts()
              << ": only corpus/ is swept under chaos\n";
    return out;
  }
  for (const fs::path& s : scenarios_of(test::shared_transcripts())) out.push_back(s);
  return out;
}

std::vector<std::string> replay_argv(const fs::path& s, const std::string& chaos, std::uint64_t seed,
                                     std::vector<std::string> extra, const std::vector<std::string>& host) {
  std::vector<std::string> argv = {msptk_bin(), "replay", "--transcript", s.string(), "--chaos", chaos,
                                   "--chaos-seed", std::to_string(seed)};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("--");
  argv.insert(argv.end(), host.begin(), host.end());
  return argv;
}

std::vector<std::string> fixture_argv(const fs::path& s, const std::string& chaos, std::uint64_t seed) {
  return {msptk_bin(), "serve-fixture", "--transcript", s.string(), "--chaos", chaos, "--chaos-seed",
          std::to_string(seed)};
}

json::object last_json_line(const std::string& err) {
  std::string_view text = err;
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  const std::size_t lf = text.rfind('\n');
  boost::system::error_code ec;
  json::value v = json::parse(lf == std::string_view::npos ? text : text.substr(lf + 1), ec);
  if (ec || !v.is_object()) {
    ADD_FAILURE() << "no JSON report line on stderr: " << err;
    return {};
  }
  return v.as_object();
}

std::size_t server_frames(const fs::path& s) { return only(read_wire_frames(s / "transcript.ndjson"), Direction::server).size(); }

// replay under chaos against the fake host, and against msptk serve-fixture under chaos itself.
void replay_passes(const fs::path& s, const std::string& chaos, std::uint64_t seed, const fs::path& tmp) {
  const fs::path report = tmp / "host.json";
  fs::remove(report);
  CommandRun run = run_command(replay_argv(s, chaos, seed, {},
                                           {fake_host_bin(), "--transcript", (s / "transcript.ndjson").string(),
                                            "--report", report.string()}));
  EXPECT_EQ(run.exit.code, 0) << chaos << " seed " << seed << "\n" << run.out << run.err;
  EXPECT_NE(run.out.find(fmt::format("chaos: {} (seed {})", chaos, seed)), std::string::npos) << run.out;
  EXPECT_TRUE(read_json_object(report).at("mismatch").is_null()) << chaos << " seed " << seed;
}

void fixture_passes(const fs::path& s, const std::string& chaos, std::uint64_t seed, const fs::path& tmp) {
  const fs::path report = tmp / "client.json";
  fs::remove(report);
  std::vector<std::string> argv = {fake_client_bin(), "--transcript", (s / "transcript.ndjson").string(), "--report",
                                   report.string(), "--"};
  for (const std::string& a : fixture_argv(s, chaos, seed)) argv.push_back(a);
  CommandRun run = run_command(argv);
  EXPECT_EQ(run.exit.code, 0) << chaos << " seed " << seed << "\n" << run.err;
  json::object line = last_json_line(run.err);
  EXPECT_EQ(line["kind"], "serveFixtureComplete") << run.err;
  EXPECT_EQ(line["chaos"].at("spec"), json::value(chaos)) << run.err;
  EXPECT_EQ(line["chaos"].at("seed").to_number<std::uint64_t>(), seed);
  json::object client = read_json_object(report);
  EXPECT_TRUE(client.at("mismatch").is_null()) << chaos << " seed " << seed << ": " << client.at("mismatch");
  EXPECT_EQ(client.at("serverFramesMatched").as_int64(), static_cast<std::int64_t>(server_frames(s)));
}

TEST(ChaosE2E, EveryScenarioOfBothCorporaPassesUnderEveryPerturbation) {
  TempDir tmp;
  const auto list = all_scenarios();
  ASSERT_GE(list.size(), 6u);
  std::uint64_t seed = 1000;
  for (const fs::path& s : list) {
    SCOPED_TRACE(s.string());
    ++seed;
    fixture_passes(s, kFixtureSweep, seed, tmp.path());
    if (!replayable(s)) continue;
    replay_passes(s, kReplaySweep, seed, tmp.path());
    // Both sides msptk, both under chaos.
    std::vector<std::string> fixture = fixture_argv(s, kFixtureSweep, seed + 1);
    CommandRun run = run_command(replay_argv(s, kReplaySweep, seed, {}, fixture));
    EXPECT_EQ(run.exit.code, 0) << run.out << run.err;
  }
}

TEST(ChaosE2E, EachPerturbationAloneOverTheOwnCorpus) {
  TempDir tmp;
  for (const fs::path& s : own_scenarios()) {
    SCOPED_TRACE(s.string());
    for (const char* chaos : {"split", "merge", "delay=2", "stall=20"}) {
      fixture_passes(s, chaos, 7, tmp.path());
      replay_passes(s, chaos, 7, tmp.path());
    }
    replay_passes(s, "cr", 7, tmp.path());
  }
}

TEST(ChaosE2E, CloseAfterCutsEveryScenarioOnPurposeAndCorrectPeersEnd) {
  TempDir tmp;
  for (const fs::path& s : all_scenarios()) {
    SCOPED_TRACE(s.string());
    // serve-fixture: the client's stdin closed after 1 server frame; the fake client sees EOF
    // and closes its end: the run was cut, exit 0.
    const fs::path report = tmp / "client.json";
    std::vector<std::string> argv = {fake_client_bin(), "--transcript", (s / "transcript.ndjson").string(),
                                     "--report", report.string(), "--"};
    for (const std::string& a : fixture_argv(s, "close-after=1", 3)) argv.push_back(a);
    CommandRun run = run_command(argv);
    EXPECT_EQ(run.exit.code, 0) << run.err;
    json::object line = last_json_line(run.err);
    EXPECT_EQ(line["kind"], server_frames(s) >= 1 ? "serveFixtureCut" : "serveFixtureComplete") << run.err;
    if (server_frames(s) >= 1) {
      EXPECT_EQ(line["serverFrames"].as_int64(), 1) << run.err;
    }
    if (!replayable(s)) continue;
    // replay: the host's stdin closed after 1 client line; the fake host ends.
    run = run_command(replay_argv(s, "close-after=1", 3, {"--format", "json"},
                                  {fake_host_bin(), "--transcript", (s / "transcript.ndjson").string()}));
    EXPECT_EQ(run.exit.code, 0) << run.out << run.err;
    json::value doc = json::parse(run.out);
    EXPECT_EQ(doc.at("chaos").at("cutAfterClientLines"), 1) << run.out;
  }
}

TEST(ChaosE2E, AHostThatHangsAfterItsStdinClosesFailsUnderCloseAfter) {
  const fs::path s = test::source_dir() / "corpus" / "handshake-request-before-initialize";
  CommandRun run = run_command(replay_argv(s, "close-after=1", 5, {"--timeout-ms", "300"},
                                           {fake_host_bin(), "--transcript", (s / "transcript.ndjson").string(),
                                            "--linger-ms", "5000"}));
  EXPECT_EQ(run.exit.code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("did not exit within 300 ms: a host must end when its client goes away"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("close-after=1 (seed 5)"), std::string::npos) << run.out;
}

TEST(ChaosE2E, AClientThatHangsAfterItsStdinClosesFailsUnderCloseAfter) {
  const fs::path s = test::source_dir() / "corpus" / "handshake-request-before-initialize";
  ASSERT_GT(server_frames(s), 1u);
  std::vector<std::string> argv = {fake_client_bin(), "--transcript", (s / "transcript.ndjson").string(),
                                   "--linger-ms", "8000", "--"};
  for (const std::string& a : fixture_argv(s, "close-after=1", 9)) argv.push_back(a);
  CommandRun run = run_command(argv);
  json::object line = last_json_line(run.err);
  EXPECT_EQ(line["kind"], "serveFixtureFailure") << run.err;
  EXPECT_EQ(line["problem"], "clientHung") << run.err;
  EXPECT_NE(line["chaos"].at("inForce").as_string().find("closed after 1 frames"), std::string::npos) << run.err;
}

// A host that passes plain playback and breaks under chaos: the report names the perturbation
// in force when it broke, and the spec and seed to reproduce it.
TEST(ChaosE2E, AHostThatOnlyBreaksUnderChaosIsToldThePerturbationInForce) {
  TempDir tmp;
  const fs::path s = test::source_dir() / "corpus" / "handshake-request-before-initialize";
  const std::vector<std::string> host = {fake_host_bin(), "--transcript", (s / "transcript.ndjson").string(),
                                         "--reject-cr"};
  std::vector<std::string> plain = {msptk_bin(), "replay", "--transcript", s.string(), "--"};
  plain.insert(plain.end(), host.begin(), host.end());
  CommandRun run = run_command(plain);
  EXPECT_EQ(run.exit.code, 0) << run.out << run.err;
  run = run_command(replay_argv(s, "split,cr", 21, {"--timeout-ms", "2000"}, host));
  EXPECT_NE(run.exit.code, 0) << run.out;
  EXPECT_NE(run.out.find("[under chaos split,cr (seed 21): client frame 1 written in"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("ended with CR LF"), std::string::npos) << run.out;
}

// The bytes of every frame are unchanged: a recording made under chaos diffs identical with
// the scenario, and its capture names the spec and seed.
TEST(ChaosE2E, ARecordingMadeUnderChaosIsIdenticalAndSaysSoInItsCapture) {
  TempDir tmp;
  for (const fs::path& s : own_scenarios()) {
    if (!replayable(s)) continue;
    SCOPED_TRACE(s.string());
    const fs::path r = tmp / s.filename();
    CommandRun run = run_command(replay_argv(s, kReplaySweep, 77, {"--record", r.string()},
                                             {fake_host_bin(), "--transcript", (s / "transcript.ndjson").string()}));
    EXPECT_EQ(run.exit.code, 0) << run.out << run.err;
    json::object manifest = read_json_object(r / "manifest.json");
    EXPECT_EQ(manifest.at("capture").at("chaos").at("spec"), kReplaySweep);
    EXPECT_EQ(manifest.at("capture").at("chaos").at("seed"), 77);
    CommandRun diff = run_command({msptk_bin(), "diff", s.string(), r.string()});
    EXPECT_EQ(diff.exit.code, 0) << diff.out;
  }
}

TEST(ChaosE2E, CheckPassesChaosThroughAndNamesItOnEachScenarioLine) {
  CommandRun run = run_command({msptk_bin(), "check", (test::source_dir() / "corpus").string(), "--chaos",
                                "split,merge,delay=1", "--chaos-seed", "7"});
  EXPECT_EQ(run.exit.code, 0) << run.out << run.err;
  std::size_t lines = 0;
  for (std::size_t at = 0; (at = run.out.find("[chaos split,merge,delay=1 (seed 7)]", at)) != std::string::npos; ++at)
    ++lines;
  EXPECT_EQ(lines, own_scenarios().size()) << run.out;
}

TEST(ChaosE2E, ARandomSeedIsNamedSoTheRunCanBeRepeated) {
  const fs::path s = test::source_dir() / "corpus" / "handshake-request-before-initialize";
  CommandRun run = run_command({msptk_bin(), "replay", "--transcript", s.string(), "--chaos", "split", "--format",
                                "json", "--", fake_host_bin(), "--transcript", (s / "transcript.ndjson").string()});
  EXPECT_EQ(run.exit.code, 0) << run.out << run.err;
  json::value doc = json::parse(run.out);
  EXPECT_TRUE(doc.at("chaos").at("seed").is_number()) << run.out;
}

}  // namespace
}  // namespace msptk::e2e
