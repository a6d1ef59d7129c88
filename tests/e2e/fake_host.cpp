// msptk_fake_host: a scripted MSP host for end-to-end tests. It plays the server lines of a
// transcript on stdout, and before each server line that follows a client line it waits for
// that client frame on stdin (and checks its bytes), so the wire order equals the transcript's.
// After the last line it reads stdin to EOF, writes its report and exits.
//
//   msptk_fake_host --transcript FILE [--report FILE] [--chunk N] [--pause-us U]
//                   [--no-read] [--die-mid-frame K] [--delay-ms D] [--exit-code N] [--stderr TEXT]
//
//   --report FILE       JSON: {"received":{bytes,fnv1a}, "sent":{bytes,fnv1a}, "mismatch":null|"...",
//                       "clientFramesMatched":N, "env":{"MSP_FRAME_LIMIT_BYTES":..., ...}, "argv":[...]}
//   --chunk N           read and write at most N bytes per system call (1: byte by byte)
//   --pause-us U        sleep U microseconds between written pieces
//   --no-read           never read stdin: write every server line at once and exit
//   --die-mid-frame K   write the first half of the K-th server line (1-based), then SIGKILL itself
//   --delay-ms D        sleep D ms before answering a client frame
//   --exit-code N       exit status at the end (default 0)
//   --stderr TEXT       write TEXT to stderr at the start
//   --reject-cr         a host that breaks the framing rules: on a client frame ending in CR it writes a
//                       parse error and exits 2 (by default a trailing CR is tolerated, as the rules
//                       say a host must)
//   --linger-ms L       once stdin ended, sleep L ms before exiting (a host that hangs after EOF)
//   --bug-after A --bug-on B  a planted bug: once a client request of method A has arrived, the
//                       response to a later request of method B gets "plantedBug":true first
//                       in its result (msptk shrink's test)
//   --home-file NAME    write "written by the host" to $HOME/NAME at the start (hermetic tests);
//                       the report's "environment" always holds the host's whole environment
// The report is written before dying (--die-mid-frame) and at exit. A client frame that differs
// from the transcript is reported as a mismatch, and the host exits 99.
#include "tool_support.hpp"

#include "msptk/transcript/reader.hpp"

#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <unistd.h>
#include <iostream>

using namespace msptk;

int main(int argc, char** argv) {
  std::string transcript, report_path, stderr_text;
  std::size_t chunk = 65536;
  unsigned pause_us = 0, delay_ms = 0;
  bool no_read = false;
  std::size_t die_mid_frame = 0;
  int exit_code = 0;
  CLI::App app{"scripted MSP test host"};
  app.add_option("--transcript", transcript)->required();
  app.add_option("--report", report_path);
  app.add_option("--chunk", chunk);
  app.add_option("--pause-us", pause_us);
  app.add_flag("--no-read", no_read);
  app.add_option("--die-mid-frame", die_mid_frame);
  app.add_option("--delay-ms", delay_ms);
  app.add_option("--exit-code", exit_code);
  app.add_option("--stderr", stderr_text);
  std::string home_file;
  app.add_option("--home-file", home_file);
  bool reject_cr = false;
  unsigned linger_ms = 0;
  app.add_flag("--reject-cr", reject_cr);
  app.add_option("--linger-ms", linger_ms);
  std::string bug_after, bug_on;
  app.add_option("--bug-after", bug_after);
  app.add_option("--bug-on", bug_on);
  bool bug_armed = false;
  std::string last_method;
  app.allow_extras();
  CLI11_PARSE(app, argc, argv);
  if (chunk == 0) chunk = 1;

  auto frames = read_transcript(transcript);
  if (!frames) {
    std::cerr << "fake_host: " << frames.error().render() << "\n";
    return 98;
  }
  if (!stderr_text.empty()) std::cerr << stderr_text << std::flush;
  if (!home_file.empty()) {
    const char* home = std::getenv("HOME");
    std::ofstream(std::string(home ? home : ".") + "/" + home_file) << "written by the host\n";
  }

  e2e::Inbox inbox(STDIN_FILENO, chunk);
  e2e::Checksum sent;
  std::string mismatch;
  std::size_t matched = 0;
  auto report = [&] {
    boost::json::object env;
    for (const char* name : {"MSP_FRAME_LIMIT_BYTES", "MSP_ID_SEED", "MSP_CLOCK_START_MS"})
      env[name] = std::getenv(name) ? boost::json::value(std::getenv(name)) : boost::json::value(nullptr);
    boost::json::object environment;
    for (char** var = environ; *var; ++var) {
      std::string_view item(*var);
      const std::size_t eq = item.find('=');
      environment[item.substr(0, eq)] = eq == std::string_view::npos ? "" : item.substr(eq + 1);
    }
    boost::json::array args;
    for (int i = 0; i < argc; ++i) args.emplace_back(argv[i]);
    e2e::write_report(report_path, {{"received", inbox.checksum().json()},
                                    {"sent", sent.json()},
                                    {"mismatch", mismatch.empty() ? boost::json::value(nullptr) : boost::json::value(mismatch)},
                                    {"clientFramesMatched", matched},
                                    {"env", env},
                                    {"environment", environment},
                                    {"argv", args}});
  };

  std::size_t server_index = 0;
  bool after_client = false;
  for (const Frame& frame : *frames) {
    if (frame.dir == Direction::client) {
      if (no_read) continue;
      auto got = inbox.next();
      if (!got) break;  // the client went away
      if (got->ends_with('\r') && !frame.wire_bytes().ends_with('\r')) {
        if (reject_cr) {  // a host that chokes on CR LF: a parse error, then it dies
          const std::string error = R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})" "\n";
          e2e::paced_write(STDOUT_FILENO, error, chunk, pause_us, sent);
          mismatch = fmt::format("transcript line {}: a client frame ending in CR", frame.line);
          report();
          return 2;
        }
        got->pop_back();
      }
      if (!bug_after.empty()) {
        boost::system::error_code ec;
        boost::json::value v = boost::json::parse(*got, ec);
        const boost::json::value* method = !ec && v.is_object() ? v.as_object().if_contains("method") : nullptr;
        last_method = method && method->is_string() ? std::string(method->as_string()) : std::string();
        if (last_method == bug_after) bug_armed = true;
      }
      if (*got != frame.wire_bytes() && mismatch.empty())
        mismatch = fmt::format("transcript line {}: expected a different client frame ({} bytes, got {})", frame.line,
                               frame.wire_bytes().size(), got->size());
      if (mismatch.empty()) ++matched;
      after_client = true;
      continue;
    }
    if (after_client && delay_ms) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    after_client = false;
    ++server_index;
    std::string wire = frame.wire_bytes() + "\n";
    if (bug_armed && last_method == bug_on) {
      if (const std::size_t at = wire.find("\"result\":{"); at != std::string::npos) {
        wire.insert(at + 10, wire[at + 10] == '}' ? "\"plantedBug\":true" : "\"plantedBug\":true,");
        last_method.clear();
      }
    }
    if (server_index == die_mid_frame) {
      e2e::paced_write(STDOUT_FILENO, std::string_view(wire).substr(0, wire.size() / 2), chunk, pause_us, sent);
      report();
      ::raise(SIGKILL);
    }
    if (!e2e::paced_write(STDOUT_FILENO, wire, chunk, pause_us, sent)) break;
  }
  if (!no_read) inbox.drain_to_eof();
  if (linger_ms) std::this_thread::sleep_for(std::chrono::milliseconds(linger_ms));
  report();
  if (!mismatch.empty()) {
    std::cerr << "fake_host: " << mismatch << "\n";
    return 99;
  }
  return exit_code;
}
