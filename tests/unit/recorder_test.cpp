// The recorder with fakes: the Tee against an in-memory sink, the forwarding loop against a
// host made of pipes and a thread (PipeHost), and record() with a fake spawner and clock.
#include "msptk/process/fd_io.hpp"
#include "msptk/process/signals.hpp"
#include "msptk/recorder/capture.hpp"
#include "msptk/recorder/forwarder.hpp"
#include "msptk/recorder/recorder.hpp"
#include "msptk/recorder/tee.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/writer.hpp"
#include "pipe_host.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <functional>
#include <thread>
#include <unistd.h>

namespace msptk::recorder {
namespace {

namespace fs = std::filesystem;
using process::ExitStatus;

struct Recorded {
  Direction dir;
  std::string bytes;
  bool operator==(const Recorded&) const = default;
};

class FakeSink : public FrameSink {
 public:
  Result<void> append(Direction dir, std::string_view bytes) override {
    if (fail_after && frames.size() >= *fail_after) return Error::unreadable("transcript.ndjson", "disk full");
    if (on_append) on_append(dir, bytes);
    frames.push_back({dir, std::string(bytes)});
    return {};
  }
  std::vector<Recorded> frames;
  std::optional<std::size_t> fail_after;
  std::function<void(Direction, std::string_view)> on_append;
};

constexpr auto C = Direction::client;
constexpr auto S = Direction::server;

TEST(Recorder, TeeCutsFramesAcrossAndWithinChunks) {
  FakeSink sink;
  Tee tee(sink, 1 << 20);
  tee.feed(C, "{\"a\"");
  EXPECT_TRUE(sink.frames.empty());
  tee.feed(C, ":1}\n{\"b\":2}\r\n\n\r\n{\"c");
  tee.feed(S, "{\"s\":1}\n");
  tee.close(C);
  tee.close(S);
  EXPECT_EQ(sink.frames, (std::vector<Recorded>{{C, "{\"a\":1}"}, {C, "{\"b\":2}\r"}, {S, "{\"s\":1}"}}));
  EXPECT_EQ(tee.stats(C).frames, 2u);
  EXPECT_EQ(tee.stats(C).empty_lines, 2u);
  EXPECT_EQ(tee.stats(C).bytes, 4u + 19u);
  EXPECT_EQ(tee.stats(C).unterminated, "{\"c");
  EXPECT_EQ(tee.stats(S).unterminated, "");
  EXPECT_TRUE(tee.flagged().empty());  // a client CR is tolerated
  EXPECT_EQ(tee.lines_recorded(), 3u);
}

TEST(Recorder, TeeFlagsServerCrInvalidUtf8AndOversizedFrames) {
  FakeSink sink;
  Tee tee(sink, 8);
  tee.feed(S, "{\"a\":1}\r\n");
  tee.feed(C, "{\"\xff\"}\n");
  tee.feed(C, "{\"long\":12345}\n");
  ASSERT_EQ(tee.flagged().size(), 3u);
  EXPECT_EQ(tee.flagged()[0].line, 1u);
  EXPECT_EQ(tee.flagged()[0].reason, "serverCR");
  EXPECT_EQ(tee.flagged()[1].line, 2u);
  EXPECT_EQ(tee.flagged()[1].reason, "invalidUtf8");
  EXPECT_EQ(tee.flagged()[2].line, 3u);
  EXPECT_EQ(tee.flagged()[2].reason, "oversized");
  EXPECT_EQ(tee.flagged()[2].bytes, 14u);
  EXPECT_EQ(sink.frames[0].bytes, "{\"a\":1}\r");  // recorded as it is
}

TEST(Recorder, TeeLearnsTheFingerprintFromTheInitializeResult) {
  FakeSink sink;
  Tee tee(sink, 1 << 20);
  tee.feed(C, R"({"jsonrpc":"2.0","id":"i","method":"initialize"})" "\n");
  tee.feed(S, R"({"jsonrpc":"2.0","id":7,"result":{"schema":{"fingerprint":"sha256:wrong"}}})" "\n");
  EXPECT_FALSE(tee.fingerprint());
  tee.feed(S, R"({"jsonrpc":"2.0","id":"i","result":{"schema":{"version":1,"fingerprint":"sha256:abc"}}})" "\n");
  EXPECT_EQ(tee.fingerprint(), "sha256:abc");

  FakeSink sink2;
  Tee rejected(sink2, 1 << 20);
  rejected.feed(C, R"({"jsonrpc":"2.0","id":1,"method":"initialize"})" "\n");
  rejected.feed(S, R"({"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"no"}})" "\n");
  EXPECT_FALSE(rejected.fingerprint());
}

TEST(Recorder, TeeStopsRecordingButKeepsCountingAfterASinkFailure) {
  FakeSink sink;
  sink.fail_after = 1;
  Tee tee(sink, 1 << 20);
  tee.feed(C, "{}\n{}\n{}\n");
  EXPECT_EQ(sink.frames.size(), 1u);
  EXPECT_EQ(tee.stats(C).frames, 3u);
  ASSERT_TRUE(tee.failure());
  EXPECT_EQ(tee.failure()->message, "disk full");
}

TEST(Recorder, PlaceholdersScenarioIdsAndDefaults) {
  RecordOptions o;
  o.id_seed = 9;
  EXPECT_EQ(expand_placeholders({"muse", "--limit={frameLimitBytes}", "{idSeed}{idSeed}", "{clockStartMs}", "{other}"}, o),
            (std::vector<std::string>{"muse", "--limit=10485760", "99", "1754590931000", "{other}"}));
  EXPECT_TRUE(check_scenario_id("session-start"));
  for (const char* bad : {"", "a/b", "a\\b", "..", "a..b", "tab\there", "bell\x07", "del\x7f"}) {
    auto r = check_scenario_id(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::usage);
  }
  EXPECT_EQ(default_scenario_id("out/my-scenario"), "my-scenario");
  EXPECT_EQ(default_scenario_id("out/my-scenario/"), "my-scenario");
}

TEST(Recorder, ScenarioDirIsPrivateAndANonEmptyOneIsRefused) {
  test::TempDir tmp;
  const fs::path dir = tmp / "a" / "rec";
  ASSERT_TRUE(prepare_scenario_dir(dir, false));
  EXPECT_EQ(fs::status(dir).permissions(), fs::perms::owner_all);
  EXPECT_TRUE(prepare_scenario_dir(dir, false));  // empty: fine
  test::write_text(dir / "keep.txt", "x");
  auto refused = prepare_scenario_dir(dir, false);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::usage);
  EXPECT_NE(refused.error().message.find("not empty"), std::string::npos);
  EXPECT_TRUE(prepare_scenario_dir(dir, true));
  auto file = prepare_scenario_dir(dir / "keep.txt", true);
  ASSERT_FALSE(file);
  EXPECT_NE(file.error().message.find("not a folder"), std::string::npos);
}

TEST(Recorder, CaptureTimesAreUtcWithMilliseconds) {
  using namespace std::chrono;
  EXPECT_EQ(format_utc(system_clock::time_point(milliseconds(1754590931000))), "2025-08-07T18:22:11.000Z");
  EXPECT_EQ(format_utc(system_clock::time_point(milliseconds(1754590931042))), "2025-08-07T18:22:11.042Z");
}

using test::PipeHost;

std::string read_all(int fd) {
  std::string out;
  char buffer[4096];
  while (true) {
    process::IoResult r = process::read_some(fd, buffer, sizeof buffer);
    if (r.eof || r.error) return out;
    out.append(buffer, r.bytes);
  }
}

// The client's side: pipes standing for msptk's stdin, stdout and stderr.
struct ClientPipes {
  int in[2], out[2], err[2];
  ClientPipes() {
    EXPECT_EQ(::pipe2(in, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(err, O_CLOEXEC), 0);
  }
  ~ClientPipes() {
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]})
      if (fd >= 0) ::close(fd);
  }
  Wiring wiring() const { return Wiring{in[0], out[1], err[1], {}, {}}; }
  void client_writes_and_closes(std::string_view bytes) {
    EXPECT_EQ(process::write_all(in[1], bytes).error, 0);
    ::close(in[1]);
    in[1] = -1;
  }
  // What reached the client (after the forwarder closed nothing: close our write ends first).
  std::string received() {
    ::close(out[1]);
    out[1] = -1;
    return read_all(out[0]);
  }
};

// Echoes "ok N" for every line the client sends, then exits with `code`.
ExitStatus echo_host(int in, int out, int err, int code) {
  std::string pending;
  int n = 0;
  char buffer[256];
  process::write_all(err, "log\n");
  while (true) {
    process::IoResult r = process::read_some(in, buffer, sizeof buffer);
    if (r.eof || r.error) break;
    pending.append(buffer, r.bytes);
    for (std::size_t lf; (lf = pending.find('\n')) != std::string::npos; pending.erase(0, lf + 1))
      process::write_all(out, "{\"ok\":" + std::to_string(++n) + "}\n");
  }
  return ExitStatus{code, 0};
}

TEST(Recorder, ForwarderRecordsEachServerFrameBeforeTheClientCanSeeIt) {
  ClientPipes client;
  (void)process::set_nonblocking(client.out[0], true);
  FakeSink sink;
  std::string seen_by_client;
  std::size_t server_frames = 0;
  sink.on_append = [&](Direction dir, std::string_view) {
    if (dir != S) return;
    seen_by_client += read_all(client.out[0]);  // whatever was forwarded so far
    // At most the frames recorded before this one may have been forwarded (a chunk can complete
    // several frames: all are recorded before the chunk goes on).
    EXPECT_LE(static_cast<std::size_t>(std::count(seen_by_client.begin(), seen_by_client.end(), '\n')), server_frames)
        << "a server frame reached the client before it was recorded";
    ++server_frames;
  };
  Tee tee(sink, 1 << 20);
  PipeHost host([](int in, int out, int err, const auto&) { return echo_host(in, out, err, 7); });
  client.client_writes_and_closes("{\"a\":1}\n{\"b\":2}\n\n{\"c\":3}\nrest");
  std::string log;
  Wiring wiring = client.wiring();
  wiring.stderr_copy = [&](std::string_view bytes) { log += bytes; };
  auto end = forward_session(host, tee, wiring, nullptr);
  ASSERT_TRUE(end);
  EXPECT_EQ(end->exit, (ExitStatus{7, 0}));
  (void)process::set_nonblocking(client.out[0], false);
  seen_by_client += client.received();
  EXPECT_EQ(seen_by_client, "{\"ok\":1}\n{\"ok\":2}\n{\"ok\":3}\n{\"ok\":4}\n");
  EXPECT_EQ(server_frames, 4u);
  EXPECT_EQ(tee.stats(C).frames, 3u);
  EXPECT_EQ(tee.stats(C).empty_lines, 1u);
  EXPECT_EQ(tee.stats(C).unterminated, "rest");
  EXPECT_EQ(log, "log\n");
  EXPECT_EQ(end->stderr_bytes, 4u);
  ::close(client.err[1]);
  client.err[1] = -1;
  EXPECT_EQ(read_all(client.err[0]), "log\n");
}

TEST(Recorder, ForwarderDrainsAHostThatExitsFirst) {
  ClientPipes client;  // the client never closes its stdin
  FakeSink sink;
  Tee tee(sink, 1 << 20);
  PipeHost host([](int, int out, int, const auto&) {
    process::write_all(out, "{\"a\":1}\n{\"b\":2}\npartial");
    return ExitStatus{0, SIGKILL};
  });
  auto end = forward_session(host, tee, client.wiring(), nullptr);
  ASSERT_TRUE(end);
  EXPECT_EQ(end->exit.shell_code(), 128 + SIGKILL);
  EXPECT_EQ(sink.frames, (std::vector<Recorded>{{S, "{\"a\":1}"}, {S, "{\"b\":2}"}}));
  EXPECT_EQ(tee.stats(S).unterminated, "partial");
  EXPECT_EQ(client.received(), "{\"a\":1}\n{\"b\":2}\npartial");
}

TEST(Recorder, ForwarderKeepsRecordingWhenTheClientStopsReading) {
  process::SigpipeIgnored no_sigpipe;
  ClientPipes client;
  ::close(client.out[0]);  // the client went away
  client.out[0] = -1;
  FakeSink sink;
  Tee tee(sink, 1 << 20);
  PipeHost host([](int, int out, int, const auto&) {
    process::write_all(out, "{\"a\":1}\n{\"b\":2}\n");
    return ExitStatus{0, 0};
  });
  client.client_writes_and_closes("");
  auto end = forward_session(host, tee, client.wiring(), nullptr);
  ASSERT_TRUE(end);
  EXPECT_TRUE(end->client_gone);
  EXPECT_EQ(sink.frames.size(), 2u);
}

// What a host writes reaches the client whole and in order whatever the client's stdout is: a
// pipe the client drains slowly (writes that would block wait for POLLOUT, the rest of a chunk
// kept), or a regular file; and a host that copies a large stdin back (writes to the host that
// the pipe does not take at once).
std::string frames_of(std::size_t bytes) {
  std::string out;
  for (int i = 0; out.size() < bytes; ++i)
    out += "{\"i\":" + std::to_string(i) + ",\"t\":\"" + std::string(static_cast<std::size_t>(i * 37 % 9000), 'x') + "\"}\n";
  return out;
}

TEST(Recorder, ForwarderHandsEveryByteOnInOrderToASlowPipeAFileAndABusyHost) {
  const std::string wire = frames_of(3u << 20);
  const std::size_t lines = static_cast<std::size_t>(std::count(wire.begin(), wire.end(), '\n'));
  auto host_writing = [&](int, int out, int, const auto&) {
    for (std::size_t at = 0; at < wire.size(); at += 10007)
      process::write_all(out, std::string_view(wire).substr(at, 10007));
    return ExitStatus{0, 0};
  };
  {  // a slow reader on a pipe
    ClientPipes client;
    client.client_writes_and_closes("");
    std::string received;
    std::thread reader([&] {
      char buffer[1500];
      for (int n = 0;; ++n) {
        process::IoResult r = process::read_some(client.out[0], buffer, sizeof buffer);
        if (r.eof || r.error) break;
        received.append(buffer, r.bytes);
        if (n % 200 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
    FakeSink sink;
    Tee tee(sink, 1 << 20);
    PipeHost host(host_writing);
    auto end = forward_session(host, tee, client.wiring(), nullptr);
    ASSERT_TRUE(end);
    ::close(client.out[1]);
    client.out[1] = -1;
    reader.join();
    EXPECT_EQ(received.size(), wire.size());
    EXPECT_TRUE(received == wire) << "the client got other bytes than the host wrote";
    EXPECT_EQ(sink.frames.size(), lines);
  }
  {  // a regular file
    test::TempDir tmp;
    const int file = ::open((tmp / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ASSERT_GE(file, 0);
    ClientPipes client;
    client.client_writes_and_closes("");
    FakeSink sink;
    Tee tee(sink, 1 << 20);
    PipeHost host(host_writing);
    Wiring wiring = client.wiring();
    wiring.client_out = file;
    auto end = forward_session(host, tee, wiring, nullptr);
    ASSERT_TRUE(end);
    ::close(file);
    EXPECT_TRUE(test::read_text(tmp / "out") == wire) << "the file got other bytes than the host wrote";
    EXPECT_EQ(sink.frames.size(), lines);
  }
  {  // a host that copies its stdin back, the client writing it all at once
    ClientPipes client;
    std::thread writer([&] { client.client_writes_and_closes(wire); });
    std::string received;
    std::thread reader([&] { received = read_all(client.out[0]); });
    FakeSink sink;
    Tee tee(sink, 1 << 20);
    PipeHost host([](int in, int out, int, const auto&) {
      char buffer[3000];
      while (true) {
        process::IoResult r = process::read_some(in, buffer, sizeof buffer);
        if (r.eof || r.error) break;
        process::write_all(out, std::string_view(buffer, r.bytes));
      }
      return ExitStatus{0, 0};
    });
    auto end = forward_session(host, tee, client.wiring(), nullptr);
    ASSERT_TRUE(end);
    writer.join();
    ::close(client.out[1]);
    client.out[1] = -1;
    reader.join();
    EXPECT_TRUE(received == wire) << "the echo came back other than it was sent";
    EXPECT_EQ(tee.stats(C).frames, lines);
    EXPECT_EQ(tee.stats(S).frames, lines);
  }
}

TEST(Recorder, ForwarderPassesSignalsToTheHost) {
  ClientPipes client;
  FakeSink sink;
  Tee tee(sink, 1 << 20);
  PipeHost host([](int, int, int, const std::atomic<int>& signal) {
    while (signal == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return ExitStatus{0, signal.load()};
  });
  auto signals = process::SignalPipe::create({SIGHUP, SIGCHLD});
  ASSERT_TRUE(signals);
  ::raise(SIGHUP);
  auto end = forward_session(host, tee, client.wiring(), &*signals);
  ASSERT_TRUE(end);
  EXPECT_EQ(end->signals_forwarded, std::vector<int>{SIGHUP});
  EXPECT_EQ(end->exit.signal, SIGHUP);
}

TEST(Recorder, RecordWritesAPinnedManifestAroundTheSession) {
  test::TempDir tmp;
  ClientPipes client;
  client.client_writes_and_closes(R"({"jsonrpc":"2.0","id":1,"method":"initialize"})" "\n");
  FixedClock clock(std::chrono::system_clock::time_point(std::chrono::milliseconds(1754590931000)));
  process::SpawnSpec spawned;
  RecordEnv env;
  env.clock = &clock;
  env.wiring = client.wiring();
  env.handle_signals = false;
  env.spawn = [&](const process::SpawnSpec& spec) -> Result<std::unique_ptr<process::HostProcess>> {
    spawned = spec;
    return std::unique_ptr<process::HostProcess>(
        std::make_unique<PipeHost>([](int in, int out, int err, const auto&) { return echo_host(in, out, err, 0); }));
  };
  RecordOptions options;
  options.out = tmp / "rec";
  options.host_argv = {"muse", "serve", "--seed={idSeed}"};
  options.clock_start_ms = 5;
  auto outcome = record(options, env);
  ASSERT_TRUE(outcome) << outcome.error().render();
  EXPECT_FALSE(outcome->recording_failure);
  EXPECT_EQ(spawned.argv, (std::vector<std::string>{"muse", "serve", "--seed=7"}));
  EXPECT_EQ(spawned.env, (std::vector<std::pair<std::string, std::string>>{
                             {"MSP_FRAME_LIMIT_BYTES", "10485760"}, {"MSP_ID_SEED", "7"}, {"MSP_CLOCK_START_MS", "5"}}));
  auto manifest = read_manifest(tmp / "rec" / "manifest.json");
  ASSERT_TRUE(manifest);
  const Manifest& m = manifest->manifest;
  EXPECT_EQ(m.scenario, "rec");
  EXPECT_EQ(m.clock_start_ms, 5);
  ASSERT_TRUE(m.capture);
  EXPECT_EQ(m.capture->at("startedAt"), "2025-08-07T18:22:11.000Z");
  EXPECT_EQ(m.capture->at("endedAt"), "2025-08-07T18:22:11.000Z");
  EXPECT_EQ(m.capture->at("status"), "complete");
  EXPECT_EQ(m.capture->at("host").at("argv").as_array().size(), 3u);
  EXPECT_EQ(m.capture->at("fingerprintSource"), "none");
  auto frames = read_transcript(tmp / "rec" / "transcript.ndjson");
  ASSERT_TRUE(frames);
  ASSERT_EQ(frames->size(), 2u);
  EXPECT_EQ((*frames)[1].raw, "{\"ok\":1}");
  EXPECT_EQ(test::read_text(tmp / "rec" / "host-stderr.log"), "log\n");
}

TEST(Recorder, ForceReplacesOldFilesWithPrivateOnes) {
  test::TempDir tmp;
  const fs::path dir = tmp / "rec";
  fs::create_directory(dir);
  test::write_text(dir / "transcript.ndjson", "old\n");
  fs::permissions(dir / "transcript.ndjson", fs::perms::all);
  test::write_text(dir / "keep.txt", "mine");
  ClientPipes client;
  client.client_writes_and_closes("");
  SystemClock clock;
  RecordEnv env;
  env.clock = &clock;
  env.wiring = client.wiring();
  env.handle_signals = false;
  env.spawn = [](const process::SpawnSpec&) -> Result<std::unique_ptr<process::HostProcess>> {
    return std::unique_ptr<process::HostProcess>(
        std::make_unique<PipeHost>([](int, int, int, const auto&) { return ExitStatus{0, 0}; }));
  };
  RecordOptions options;
  options.out = dir;
  options.host_argv = {"muse"};
  ASSERT_FALSE(record(options, env));  // not empty
  options.force = true;
  ASSERT_TRUE(record(options, env));
  EXPECT_EQ(test::read_text(dir / "transcript.ndjson"), "");
  EXPECT_EQ(fs::status(dir / "transcript.ndjson").permissions(), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(test::read_text(dir / "keep.txt"), "mine");
}

TEST(Recorder, RecordCleansUpWhenTheHostCannotBeSpawned) {
  test::TempDir tmp;
  SystemClock clock;
  RecordEnv env;
  env.clock = &clock;
  env.handle_signals = false;
  env.spawn = [](const process::SpawnSpec&) -> Result<std::unique_ptr<process::HostProcess>> {
    return Error{ErrorKind::spawn, "cannot spawn 'muse': not found in PATH", {}, 0, {}};
  };
  RecordOptions options;
  options.out = tmp / "rec";
  options.host_argv = {"muse"};
  auto outcome = record(options, env);
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().kind, ErrorKind::spawn);
  EXPECT_FALSE(fs::exists(tmp / "rec"));

  options.scenario = "../escape";
  auto bad_id = record(options, env);
  ASSERT_FALSE(bad_id);
  EXPECT_EQ(bad_id.error().kind, ErrorKind::usage);
}

}  // namespace
}  // namespace msptk::recorder
