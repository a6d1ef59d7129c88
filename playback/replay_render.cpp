#include "msptk/playback/replay_render.hpp"
#include "msptk/transcript/display.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/process/signals.hpp"
#include "msptk/transcript/json_io.hpp"


#include <fmt/format.h>

namespace msptk {

namespace json = boost::json;

namespace {

std::string host_end(const ReplayResult& r) {
  if (!r.host_exit) return "the host was not started";
  const process::ExitStatus& e = *r.host_exit;
  std::string text = e.signaled() ? fmt::format("the host was killed by {}", process::signal_name(e.signal))
                                  : fmt::format("the host exited with code {}", e.code);
  if (r.host_killed) text += " (by msptk)";
  return text;
}

json::value parsed(const std::string& text) {
  auto v = parse_json(text);
  return v ? std::move(*v) : json::value(json::string(text));
}

}  // namespace

std::string replay_outcome_line(const ReplayResult& r) {
  if (!r.passed()) return "replay failed: " + r.problem;
  if (r.chaos && r.chaos->cut_after)
    return fmt::format("replay cut on purpose under chaos {} (seed {}): the host's stdin was closed after {} client "
                       "lines and it ended; {} server frames received; {}",
                       r.chaos->spec, r.chaos->seed, *r.chaos->cut_after, r.server_frames_received, host_end(r));
  return fmt::format("replay passed: {} server frames checked, {} client lines sent; {}", r.server_frames_received,
                     r.client_lines_sent, host_end(r));
}

void render_replay_text(std::ostream& out, const ReplayResult& r, const TextStyle& style) {
  if (r.host_exit || r.exit_code != 3) {
    DiffReport report;
    report.comparisons.push_back(r.report);
    render_text(out, report, style);
  }
  for (const CarriedValue& c : r.carried)
    out << display_text(fmt::format("carried {}:{} {}: {} → {} (learned in {})", r.report.expected_file, c.line,
                                    c.location, c.recorded, c.live, c.learned_from))
        << "\n";
  if (r.host_exit && !r.passed()) out << host_end(r) << "\n";
  if (r.chaos) out << display_text(fmt::format("chaos: {} (seed {})", r.chaos->spec, r.chaos->seed)) << "\n";
  if (r.exit_code == 3 && !r.host_stderr_tail.empty()) {
    out << "host stderr (last " << r.host_stderr_tail.size() << " bytes):\n";
    std::string_view tail = r.host_stderr_tail;
    while (!tail.empty()) {
      const std::size_t lf = tail.find('\n');
      out << "  " << display_text(tail.substr(0, lf)) << "\n";
      tail.remove_prefix(lf == std::string_view::npos ? tail.size() : lf + 1);
    }
  }
  if (r.recording_failure && r.exit_code != 3)
    out << "recording failed: " << display_text(r.recording_failure->render()) << "\n";
  out << display_text(replay_outcome_line(r)) << "\n";
}

json::value to_json(const ReplayResult& r) {
  json::array argv;
  for (const std::string& a : r.host_argv) argv.emplace_back(a);
  json::value exit = nullptr;
  if (r.host_exit) {
    if (r.host_exit->signaled())
      exit = json::object{{"signal", r.host_exit->signal}, {"signalName", process::signal_name(r.host_exit->signal)}};
    else
      exit = json::object{{"code", r.host_exit->code}};
  }
  json::array carried;
  for (const CarriedValue& c : r.carried)
    carried.push_back(json::object{{"line", c.line},
                                   {"location", c.location},
                                   {"recorded", parsed(c.recorded)},
                                   {"live", parsed(c.live)},
                                   {"learnedFrom", c.learned_from}});
  return json::object{
      {"kind", "msptkReplay"},
      {"schemaVersion", 1},
      {"scenario", r.scenario},
      {"passed", r.passed()},
      {"exitCode", r.exit_code},
      {"problem", r.problem.empty() ? json::value(nullptr) : json::value(r.problem)},
      {"host", json::object{{"argv", std::move(argv)},
                            {"exit", std::move(exit)},
                            {"killedByMsptk", r.host_killed},
                            {"stderrTail", r.host_stderr_tail}}},
      {"clientLinesSent", r.client_lines_sent},
      {"serverFrames", json::object{{"expected", r.server_frames_expected}, {"received", r.server_frames_received}}},
      {"carried", std::move(carried)},
      {"record", r.record_dir ? json::value(r.record_dir->string()) : json::value(nullptr)},
      {"recordingFailure", r.recording_failure ? json::value(r.recording_failure->render()) : json::value(nullptr)},
      {"chaos", r.chaos ? json::value(json::object{
                                  {"spec", r.chaos->spec},
                                  {"seed", r.chaos->seed},
                                  {"inForce", r.chaos->in_force.empty() ? json::value(nullptr) : json::value(r.chaos->in_force)},
                                  {"cutAfterClientLines", r.chaos->cut_after ? json::value(*r.chaos->cut_after) : json::value(nullptr)}})
                        : json::value(nullptr)},
      {"comparison", to_json(r.report)}};
}

void render_replay_json(std::ostream& out, const ReplayResult& r) { out << pretty(to_json(r)) << "\n"; }

}  // namespace msptk
