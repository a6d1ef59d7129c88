// Helpers for end-to-end tests that run real processes: where the built programs are, running
// a command to its end with a timeout (its stdout/stderr collected), scripted transcripts and
// the reports the scripted peers (fake_host, fake_client) leave behind.
//
// The peers' command lines are documented at the top of fake_host.cpp and fake_client.cpp:
//   msptk_fake_client --transcript T --report R -- msptk record --out DIR -- msptk_fake_host --transcript T --report H
#pragma once

#include "test_support.hpp"

#include "msptk/process/host_process.hpp"
#include "msptk/process/fd_io.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/writer.hpp"

#include <boost/json.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <poll.h>
#include <string>
#include <vector>

namespace msptk::e2e {

inline std::string msptk_bin() { return MSPTK_BIN; }
inline std::string fake_host_bin() { return MSPTK_FAKE_HOST; }
inline std::string fake_client_bin() { return MSPTK_FAKE_CLIENT; }

struct CommandRun {
  process::ExitStatus exit;
  std::string out, err;
  bool timed_out = false;
};

// Runs argv with stdin closed, collecting stdout and stderr; kills it after `timeout`.
inline CommandRun run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  CommandRun run;
  process::SpawnSpec spec;
  spec.argv = argv;
  auto child = process::spawn_host(spec);
  if (!child) {
    ADD_FAILURE() << child.error().render();
    run.exit.code = -1;
    return run;
  }
  process::HostProcess& host = **child;
  host.close_stdin();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool out_open = true, err_open = true;
  char buffer[65536];
  while (out_open || err_open) {
    pollfd fds[2] = {{out_open ? host.stdout_fd() : -1, POLLIN, 0}, {err_open ? host.stderr_fd() : -1, POLLIN, 0}};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      run.timed_out = true;
      ::kill(-host.pid(), SIGKILL);  // its process group: the recorder and its host
      ::kill(host.pid(), SIGKILL);
      break;
    }
    if (::poll(fds, 2, static_cast<int>(left.count())) < 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !fds[i].revents) continue;
      process::IoResult r = process::read_some(fds[i].fd, buffer, sizeof buffer);
      if (r.eof || (r.error && r.error != EAGAIN)) (i == 0 ? out_open : err_open) = false;
      else (i == 0 ? run.out : run.err).append(buffer, r.bytes);
    }
  }
  run.exit = host.wait();
  EXPECT_FALSE(run.timed_out) << "timed out: " << argv.front();
  return run;
}

inline boost::json::object read_json_object(const std::filesystem::path& path) {
  std::string text = test::read_text(path);
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(text, ec);
  if (ec || !value.is_object()) {
    ADD_FAILURE() << "not a JSON object: " << path << ": " << text;
    return {};
  }
  return value.as_object();
}

// A frame as (direction, exact wire bytes): what the tests compare.
using WireFrame = std::pair<Direction, std::string>;

inline std::vector<WireFrame> wire_frames(const std::vector<Frame>& frames) {
  std::vector<WireFrame> out;
  for (const auto& f : frames) out.emplace_back(f.dir, f.wire_bytes());
  return out;
}

inline std::vector<WireFrame> read_wire_frames(const std::filesystem::path& transcript) {
  auto frames = read_transcript(transcript);
  if (!frames) {
    ADD_FAILURE() << frames.error().render();
    return {};
  }
  return wire_frames(*frames);
}

inline void write_transcript(const std::filesystem::path& path, const std::vector<WireFrame>& frames) {
  auto writer = TranscriptWriter::create(path);
  ASSERT_TRUE(writer) << writer.error().render();
  for (const auto& [dir, bytes] : frames) ASSERT_TRUE(writer->append(dir, bytes));
}

inline std::vector<WireFrame> only(const std::vector<WireFrame>& frames, Direction dir) {
  std::vector<WireFrame> out;
  for (const auto& f : frames)
    if (f.first == dir) out.push_back(f);
  return out;
}

}  // namespace msptk::e2e
