// muse-conformance as SDKs use it: the binary spawned BY THAT NAME through PATH (posix_spawnp,
// like an SDK's child_process.spawn("muse-conformance", ...)), serve-fixture exiting on its own
// with the client's stdin still open, the dead-host variant's stderr tail as SDKs keep it, and
// the maintenance verbs by name on copies of corpus scenarios (never on ../shared itself).
#include "e2e_support.hpp"

#include "msptk/transcript/framing.hpp"

#include <fcntl.h>
#include <regex>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <deque>
#include <fstream>
#include <thread>

extern char** environ;

namespace msptk::e2e {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

fs::path bin_dir() { return fs::path(msptk_bin()).parent_path(); }

// A child spawned by name through PATH = the build's bin folder first, with its stdio as pipes.
struct Child {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;

  static Child spawn(const std::vector<std::string>& argv) {
    Child c;
    int in[2], out[2], err[2];
    EXPECT_EQ(::pipe2(in, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(err, O_CLOEXEC), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    std::vector<std::string> env_strings;
    const char* path = std::getenv("PATH");
    env_strings.push_back("PATH=" + bin_dir().string() + ":" + (path ? path : "/usr/bin:/bin"));
    for (char** e = environ; *e; ++e)
      if (std::string_view(*e).substr(0, 5) != "PATH=") env_strings.emplace_back(*e);
    std::vector<char*> envp, args;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_copy = argv;
    for (auto& a : argv_copy) args.push_back(a.data());
    args.push_back(nullptr);
    // posix_spawnp searches the PATH of the calling process: set it for the call.
    const std::string old_path = path ? path : "";
    ::setenv("PATH", env_strings.front().substr(5).c_str(), 1);
    const int rc = ::posix_spawnp(&c.pid, args[0], &actions, nullptr, args.data(), envp.data());
    ::setenv("PATH", old_path.c_str(), 1);
    EXPECT_EQ(rc, 0) << "posix_spawnp " << argv[0] << ": " << std::strerror(rc);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    c.in = in[1];
    c.out = out[0];
    c.err = err[0];
    return c;
  }

  // Waits up to `timeout` for the child to exit on its own; nullopt if it did not.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < until) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return std::nullopt;
  }
  void kill_and_reap() {
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
  std::string drain(int fd) {
    std::string all;
    char buffer[4096];
    for (;;) {
      process::IoResult r = process::read_some(fd, buffer, sizeof buffer);
      if (r.eof || r.error) return all;
      all.append(buffer, r.bytes);
    }
  }
  ~Child() {
    for (int fd : {in, out, err})
      if (fd >= 0) ::close(fd);
  }
};

// One LF-terminated line from `fd` (the fixture's stdout).
std::optional<std::string> read_line(int fd, std::string& pending) {
  for (;;) {
    if (auto lf = pending.find('\n'); lf != std::string::npos) {
      std::string line = pending.substr(0, lf);
      pending.erase(0, lf + 1);
      return line;
    }
    char buffer[65536];
    process::IoResult r = process::read_some(fd, buffer, sizeof buffer);
    if (r.eof || r.error) return std::nullopt;
    pending.append(buffer, r.bytes);
  }
}

// The SDK-like client: plays the recording's client lines, checks each server line it
// receives, then waits for the host to exit on its own with stdin still open.
void play_like_an_sdk(const fs::path& scenario) {
  SCOPED_TRACE(scenario.string());
  Child fixture = Child::spawn({"muse-conformance", "serve-fixture", "--transcript", scenario.string()});
  std::string pending;
  for (const auto& [dir, bytes] : read_wire_frames(scenario / "transcript.ndjson")) {
    if (dir == Direction::client) {
      ASSERT_FALSE(process::write_all(fixture.in, bytes + "\n").error);
    } else {
      auto line = read_line(fixture.out, pending);
      ASSERT_TRUE(line) << "the fixture's stdout ended early";
      EXPECT_EQ(*line, bytes);
    }
  }
  // stdin stays open: the fixture must exit by itself, and close its stdout.
  std::optional<int> code = fixture.wait_exit(std::chrono::seconds(10));
  if (!code) {
    fixture.kill_and_reap();
    FAIL() << "muse-conformance serve-fixture did not exit on its own with stdin open";
  }
  EXPECT_EQ(*code, 0);
  EXPECT_FALSE(read_line(fixture.out, pending)) << "stdout carries no more frames";
  const std::string err = fixture.drain(fixture.err);
  EXPECT_TRUE(std::regex_search(err, std::regex(R"("kind":"serveFixtureComplete")"))) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST(ConformanceE2E, ServeFixtureSpawnedByNameExitsOnItsOwnOnceThePlayIsComplete) {
  play_like_an_sdk(test::source_dir() / "corpus" / "handshake-request-before-initialize");
  if (fs::is_directory(test::shared_transcripts())) play_like_an_sdk(test::shared_transcripts() / "text-run-single-turn");
}

// An SDK keeps the last 100 lines / 8 KiB of a dead host's stderr and asserts all 100 fit.
TEST(ConformanceE2E, ADeadHostsLastHundredLinesFitTheSdksEightKibibyteTail) {
  Child dead = Child::spawn({"muse-conformance", "serve-fixture", "--exit-code", "1", "--stderr-lines", "400"});
  std::optional<int> code = dead.wait_exit(std::chrono::seconds(10));
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 1);
  EXPECT_EQ(dead.drain(dead.out), "");
  const std::string err = dead.drain(dead.err);
  std::deque<std::string> tail;
  std::size_t bytes = 0;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);) {
    tail.push_back(line);
    bytes += line.size() + 1;
    while (tail.size() > 100 || bytes > 8192) {
      bytes -= tail.front().size() + 1;
      tail.pop_front();
    }
  }
  EXPECT_EQ(tail.size(), 100u) << "100 lines must fit in 8 KiB";
  EXPECT_TRUE(tail.back().ends_with("diagnostic line 400")) << tail.back();
}

// A copy of corpus scenarios laid out as a schema/msp tree under a temp folder.
fs::path copy_tree(const TempDir& tmp, const std::vector<std::string>& scenarios) {
  const fs::path msp = tmp / "src/schema/msp";
  const fs::path from = test::shared_corpus();
  fs::create_directories(msp / "transcripts");
  for (const char* folder : {"stable", "release-baseline", "experimental", "changelog"})
    fs::copy(from / folder, msp / folder, fs::copy_options::recursive);
  for (const std::string& s : scenarios) fs::copy(from / "transcripts" / s, msp / "transcripts" / s, fs::copy_options::recursive);
  for (const auto& e : fs::recursive_directory_iterator(tmp.path()))  // the shared copy is read-only
    fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
  return msp;
}

// A `muse` for `--muse-bin`: `muse serve` plays SCENARIO's server side.
fs::path fake_muse(const TempDir& tmp, const fs::path& scenario, const std::string& name = "muse") {
  const fs::path script = tmp / name;
  std::ofstream(script) << "#!/bin/sh\n[ \"$1\" = serve ] || { echo \"usage: muse serve\" >&2; exit 64; }\nexec '"
                        << msptk_bin() << "' serve-fixture --transcript '" << scenario.string() << "'\n";
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

TEST(ConformanceE2E, StalenessRepinAndRegenByNameOnCopiesOfCorpusScenarios) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  TempDir tmp;
  const fs::path msp = copy_tree(tmp, {"text-run-single-turn", "usershell-without-grant", "model-round-trip"});
  const std::string root = (tmp / "src").string();
  const std::string muse_conformance = (bin_dir() / "muse-conformance").string();

  CommandRun staleness = run_command({muse_conformance, "staleness", "--root", root});
  EXPECT_EQ(staleness.exit.code, 1) << staleness.err;
  EXPECT_NE(staleness.out.find("3 manifests: 1 current, 0 acknowledged, 2 stale"), std::string::npos) << staleness.out;

  // An additive bundle for model-round-trip's pin: stable without one method.
  std::string schema = test::read_text(msp / "stable/msp.schema.json");
  boost::json::value doc = boost::json::parse(schema);
  doc.at("methods").as_object().erase("goal/edit");
  const std::string pin = "sha256:1d03f10c2e42543d1a8871b770aa6c3617b0e27829752ceb2d84ccf5f33066ac";
  fs::create_directories(tmp / "bundles/old");
  test::write_text(tmp / "bundles/old/msp.schema.json", boost::json::serialize(doc));
  test::write_text(tmp / "bundles/old/manifest.json", "{\"fingerprint\":\"" + pin + "\"}");
  const std::string before = test::read_text(msp / "transcripts/model-round-trip/manifest.json");
  CommandRun dry = run_command({muse_conformance, "repin", "--root", root, "--bundles", (tmp / "bundles").string(),
                                "--dry-run"});
  EXPECT_EQ(dry.exit.code, 0) << dry.out << dry.err;  // both 1d03 pins are additive against that bundle
  EXPECT_NE(dry.out.find("would repin " + pin), std::string::npos) << dry.out;
  EXPECT_EQ(test::read_text(msp / "transcripts/model-round-trip/manifest.json"), before);
  CommandRun real = run_command({muse_conformance, "repin", "--root", root, "--bundles", (tmp / "bundles").string()});
  EXPECT_EQ(real.exit.code, 0) << real.out << real.err;
  std::string expected = before;
  expected.replace(expected.find(pin), pin.size(), "sha256:7c94f153c41659cb3f1bd3c3e04438be254644cb2a97d65d48edc7449b74858a");
  EXPECT_EQ(test::read_text(msp / "transcripts/model-round-trip/manifest.json"), expected);

  // regen by scenario name under --root, the host a `muse` that plays the recording itself.
  const fs::path scenario = msp / "transcripts/usershell-without-grant";
  const std::string transcript = test::read_text(scenario / "transcript.ndjson");
  CommandRun regen = run_command({muse_conformance, "regen", "--root", root, "--transcript", "usershell-without-grant",
                                  "--muse-bin", fake_muse(tmp, scenario).string()});
  EXPECT_EQ(regen.exit.code, 0) << regen.out << regen.err;
  EXPECT_NE(regen.out.find("identical"), std::string::npos) << regen.out;
  EXPECT_EQ(test::read_text(scenario / "transcript.ndjson"), transcript);

  // A host that answers differently: the diff, the question, nothing rewritten.
  TempDir other;
  const fs::path changed = other / "usershell-without-grant";
  fs::copy(scenario, changed, fs::copy_options::recursive);
  std::string text = test::read_text(changed / "transcript.ndjson");
  const std::size_t at = text.find("muse-session-server");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 19, "some-other-server!!");
  test::write_text(changed / "transcript.ndjson", text);
  CommandRun divergent = run_command({muse_conformance, "regen", "--root", root, "--transcript", "usershell-without-grant",
                                      "--muse-bin", fake_muse(tmp, changed, "other-muse").string()});
  EXPECT_NE(divergent.out.find("host wrong or fixture wrong?"), std::string::npos) << divergent.out << divergent.err;
  const bool justified = test::read_text(scenario / "manifest.json").find("regenerationJustification") != std::string::npos;
  EXPECT_EQ(divergent.exit.code, justified ? 0 : 1) << divergent.out;
  if (!justified) {
    EXPECT_EQ(test::read_text(scenario / "transcript.ndjson"), transcript);
  }

  // replay by name against the same `muse`.
  CommandRun replay = run_command({muse_conformance, "replay", "--root", root, "--transcript", "text-run-single-turn",
                                   "--muse-bin", fake_muse(tmp, msp / "transcripts/text-run-single-turn", "m3").string()});
  EXPECT_EQ(replay.exit.code, 0) << replay.out << replay.err;
}

TEST(ConformanceE2E, MsptkConformanceIsTheSameCommandLine) {
  CommandRun via_msptk = run_command({msptk_bin(), "conformance", "--help"});
  CommandRun by_name = run_command({(bin_dir() / "muse-conformance").string(), "--help"});
  EXPECT_EQ(via_msptk.exit.code, 0);
  EXPECT_EQ(by_name.exit.code, 0);
  for (const char* verb : {"validate", "staleness", "repin", "replay", "regen", "serve-fixture"}) {
    EXPECT_NE(by_name.out.find(verb), std::string::npos) << verb;
    EXPECT_NE(via_msptk.out.find(verb), std::string::npos) << verb;
  }
  CommandRun usage = run_command({(bin_dir() / "muse-conformance").string(), "replay"});
  EXPECT_EQ(usage.exit.code, 2);
}

// validate by name is msptk validate over ROOT/transcripts against the stable bundle: the same
// report and exit code as that msptk command line (whatever the corpus's verdict is).
TEST(ConformanceE2E, ValidateByNameIsMsptkValidateAgainstTheStableBundle) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  const fs::path root = test::shared_corpus();
  const std::string muse_conformance = (bin_dir() / "muse-conformance").string();
  CommandRun by_name = run_command({muse_conformance, "validate", "--root", root.string()});
  CommandRun direct = run_command({msptk_bin(), "validate", (root / "transcripts").string(), "--stable-manifest",
                                   (root / "stable/manifest.json").string(), "--schema",
                                   (root / "stable/msp.schema.json").string()});
  EXPECT_EQ(by_name.exit.code, direct.exit.code);
  EXPECT_EQ(by_name.out, direct.out);
  EXPECT_NE(by_name.out.find("37 scenarios:"), std::string::npos) << by_name.out;
  CommandRun one = run_command({muse_conformance, "validate", "--root", root.string(), "--transcript",
                                "model-round-trip", "--format", "json"});
  EXPECT_LE(one.exit.code, 1) << one.err;
  EXPECT_EQ(boost::json::parse(one.out).at("summary").at("scenarios"), 1) << one.out;
}

}  // namespace
}  // namespace msptk::e2e
