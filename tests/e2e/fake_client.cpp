// msptk_fake_client: a scripted MSP client for end-to-end tests. It spawns COMMAND (a host,
// `msptk record -- HOST`, or anything that speaks MSP on stdio), writes the client lines of a
// transcript to its stdin and, before each client line that follows a server line, waits for
// that server frame on its stdout (and checks its bytes). After the last line it closes the
// command's stdin, reads its stdout to EOF, waits for it and exits with its status
// (128+N for signal N).
//
//   msptk_fake_client --transcript FILE [--report FILE] [--chunk N] [--pause-us U]
//                     [--blank-lines] [--close-early] [--signal NAME --after K] -- COMMAND [ARGS...]
//
//   --report FILE       JSON: {"sent":{bytes,fnv1a}, "received":{bytes,fnv1a}, "mismatch":null|"...",
//                       "serverFramesMatched":N, "truncated":bool, "exit":{"code":N}|{"signal":N},
//                       "unterminated":"<bytes after the last LF received>"}
//   --chunk N           write at most N bytes per system call and read at most N per read
//   --pause-us U        sleep U microseconds between written pieces
//   --blank-lines       write an empty line before every client frame
//   --close-early       close COMMAND's stdin right after writing the last client line
//   --linger-ms L       sleep L ms before closing COMMAND's stdin at the end (a client that hangs)
//   --signal NAME --after K  send signal NAME (TERM, INT, HUP, KILL) to COMMAND once K
//                       transcript lines have been played
// A server frame that differs from the transcript is reported as a mismatch; EOF while waiting
// for one sets "truncated" and the client stops expecting.
#include "tool_support.hpp"

#include "msptk/process/host_process.hpp"
#include "msptk/process/signals.hpp"
#include "msptk/transcript/reader.hpp"

#include <CLI/CLI.hpp>

#include <csignal>
#include <iostream>

using namespace msptk;

int main(int argc, char** argv) {
  std::string transcript, report_path, signal_name;
  std::size_t chunk = 65536, signal_after = 0;
  unsigned pause_us = 0;
  bool blank_lines = false, close_early = false;
  std::vector<std::string> command;
  CLI::App app{"scripted MSP test client"};
  app.add_option("--transcript", transcript)->required();
  app.add_option("--report", report_path);
  app.add_option("--chunk", chunk);
  app.add_option("--pause-us", pause_us);
  app.add_flag("--blank-lines", blank_lines);
  app.add_flag("--close-early", close_early);
  app.add_option("--signal", signal_name)->check(CLI::IsMember({"TERM", "INT", "HUP", "KILL"}));
  app.add_option("--after", signal_after);
  unsigned linger_ms = 0;
  app.add_option("--linger-ms", linger_ms);
  app.add_option("command", command)->required();
  CLI11_PARSE(app, argc, argv);
  if (chunk == 0) chunk = 1;
  const int signo = signal_name == "TERM" ? SIGTERM
                    : signal_name == "INT" ? SIGINT
                    : signal_name == "HUP" ? SIGHUP
                    : signal_name == "KILL" ? SIGKILL
                                            : 0;

  auto frames = read_transcript(transcript);
  if (!frames) {
    std::cerr << "fake_client: " << frames.error().render() << "\n";
    return 98;
  }
  process::SigpipeIgnored no_sigpipe;
  auto child = e2e::spawn_command(command, "fake_client");
  if (!child) return 97;
  process::HostProcess& host = *child;

  std::size_t last_client = 0;
  for (std::size_t i = 0; i < frames->size(); ++i)
    if ((*frames)[i].dir == Direction::client) last_client = i;

  e2e::Inbox inbox(host.stdout_fd(), chunk);
  e2e::Checksum sent;
  std::string mismatch;
  std::size_t matched = 0;
  bool truncated = false, writable = true;
  for (std::size_t i = 0; i < frames->size(); ++i) {
    if (signo && i == signal_after) ::kill(host.pid(), signo);
    const Frame& frame = (*frames)[i];
    if (frame.dir == Direction::client) {
      if (!writable) continue;
      std::string wire = (blank_lines ? "\n" : "") + frame.wire_bytes() + "\n";
      writable = e2e::paced_write(host.stdin_fd(), wire, chunk, pause_us, sent);
      if (close_early && i == last_client) host.close_stdin();
      continue;
    }
    if (truncated) continue;
    auto got = inbox.next();
    if (!got) {
      truncated = true;  // the server side closed: a client stops talking too
      writable = false;
      continue;
    }
    if (*got != frame.wire_bytes() && mismatch.empty())
      mismatch = fmt::format("transcript line {}: expected a different server frame ({} bytes, got {})", frame.line,
                             frame.wire_bytes().size(), got->size());
    if (mismatch.empty()) ++matched;
  }
  if (signo && signal_after >= frames->size()) ::kill(host.pid(), signo);
  // --linger-ms L: a client that keeps its host's stdin open L ms after the session ended (or
  // its host's stdout did): it hangs instead of seeing EOF.
  if (linger_ms) std::this_thread::sleep_for(std::chrono::milliseconds(linger_ms));
  host.close_stdin();
  inbox.drain_to_eof();
  process::ExitStatus exit = host.wait();

  boost::json::object exit_json;
  if (exit.signaled()) exit_json["signal"] = exit.signal;
  else exit_json["code"] = exit.code;
  e2e::write_report(report_path, {{"sent", sent.json()},
                                  {"received", inbox.checksum().json()},
                                  {"mismatch", mismatch.empty() ? boost::json::value(nullptr) : boost::json::value(mismatch)},
                                  {"serverFramesMatched", matched},
                                  {"truncated", truncated},
                                  {"exit", exit_json},
                                  {"unterminated", std::string(inbox.pending())}});
  if (!mismatch.empty()) std::cerr << "fake_client: " << mismatch << "\n";
  return exit.shell_code();
}
