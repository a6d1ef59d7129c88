#include "msptk/check/client_runner.hpp"

#include "validate_step.hpp"

#include "msptk/check/host_command.hpp"
#include "msptk/transcript/display.hpp"
#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/json_parse.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <system_error>

namespace msptk::check {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

// A value quoted in a reason: at most 80 bytes, cut on a character boundary.
std::string cut(std::string_view text) {
  if (text.size() <= 80) return std::string(text);
  std::size_t end = 77;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end)) + "...";
}

// The canned host's log (serve-fixture --report-to): one start line per host, then the report.
struct FixtureLog {
  std::size_t starts = 0;
  std::optional<json::object> report;  // the first report line
  std::string error;                   // a serveFixtureError's message
  std::string malformed;               // a line that is not a log line
};

FixtureLog read_log(const fs::path& file) {
  FixtureLog log;
  auto text = read_file(file);
  if (!text) return log;  // no file: no host ever started
  std::string_view rest = *text;
  while (!rest.empty()) {
    const std::size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (line.empty()) continue;
    auto value = parse_json(line);
    const json::object* o = value && value->is_object() ? &value->as_object() : nullptr;
    const json::string* kind = o && o->contains("kind") ? o->at("kind").if_string() : nullptr;
    if (!kind) {
      if (log.malformed.empty()) log.malformed = std::string(line.substr(0, 200));
      continue;
    }
    if (*kind == "serveFixtureStart") {
      ++log.starts;
    } else if (*kind == "serveFixtureError") {
      if (const json::string* e = o->contains("error") ? o->at("error").if_string() : nullptr; e && log.error.empty())
        log.error = std::string(*e);
    } else if (!log.report) {
      log.report = *o;
    }
  }
  return log;
}

std::string text_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return {};
  if (const json::string* s = v->if_string()) return std::string(*s);
  return serialize_json(*v);
}

// "transcript.ndjson:6: client frame 4 ... at params.workspaceRoot" for a failure report.
std::string first_divergence(const json::object& report) {
  std::string where = text_at(report, "transcript");
  if (std::string line = text_at(report, "transcriptLine"); !line.empty()) where += ":" + line;
  const std::string problem = text_at(report, "problem");
  std::string what = problem;
  if (const json::array* errors = report.contains("errors") ? report.at("errors").if_array() : nullptr;
      errors && !errors->empty() && errors->front().is_string())
    what = problem == "frameDivergence" || problem.empty() ? std::string(errors->front().as_string())
                                                           : problem + ": " + std::string(errors->front().as_string());
  std::string line = fmt::format("{}: {}", where, what);
  if (const json::array* d = report.contains("divergences") ? report.at("divergences").if_array() : nullptr;
      d && !d->empty() && d->front().is_object()) {
    const json::object& first = d->front().as_object();
    const std::string path = text_at(first, "path");
    if (!path.empty())
      line += fmt::format(", at {}: {} → {}", path, cut(text_at(first, "expected")), cut(text_at(first, "received")));
    else if (std::string note = text_at(first, "note"); !note.empty())
      line += fmt::format(" ({})", note);
  }
  return line;
}

// Every difference a --keep-going report lists, one line each.
std::string keep_going_details(const json::object& report) {
  std::string out;
  const json::array* frames = report.contains("frames") ? report.at("frames").if_array() : nullptr;
  if (!frames) return out;
  const std::string transcript = text_at(report, "transcript");
  for (const json::value& v : *frames) {
    const json::object* f = v.if_object();
    if (!f) continue;
    std::string line = text_at(*f, "outcome");
    const std::string at = text_at(*f, "transcriptLine");
    line += at.empty() ? fmt::format(" (client input line {})", text_at(*f, "inputLine"))
                       : fmt::format(" {}:{}", transcript, at);
    line += " " + text_at(*f, "signature");
    if (const json::array* d = f->contains("divergences") ? f->at("divergences").if_array() : nullptr) {
      for (const json::value& p : *d)
        if (const json::object* po = p.if_object(); po && !text_at(*po, "path").empty())
          line += fmt::format("\n    at {}: {} → {}", text_at(*po, "path"), cut(text_at(*po, "expected")),
                              cut(text_at(*po, "received")));
    }
    out += line + "\n";
  }
  if (std::string omitted = text_at(report, "framesOmitted"); !omitted.empty())
    out += fmt::format("({} more differences not listed)\n", omitted);
  return out;
}

std::string describe_exit(const process::ExitStatus& exit) {
  return exit.signaled() ? fmt::format("was killed by signal {}", exit.signal) : fmt::format("exited {}", exit.code);
}

std::string tail_details(const ClientRun& run) {
  if (run.stderr_tail.empty()) return "the client wrote nothing on stderr\n";
  std::string out = "the client's stderr (its tail):\n" + run.stderr_tail;
  if (out.back() != '\n') out += '\n';
  return out;
}

json::value client_json(const ClientRun& run, const FixtureLog& log) {
  json::value exit = nullptr;
  if (run.exit) exit = json::object{{"code", run.exit->code}, {"signal", run.exit->signal}};
  json::value report = nullptr;
  if (log.report) report = *log.report;
  return json::object{{"exit", std::move(exit)},
                      {"timedOut", run.timed_out},
                      {"hostStarts", log.starts},
                      {"stderrTail", run.stderr_tail},
                      {"fixtureReport", std::move(report)}};
}

}  // namespace

std::vector<std::string> ClientRunner::host_argv(const ScenarioTask& task, const fs::path& log) const {
  std::vector<std::string> argv;
  if (!options_.keep.empty())
    argv = {options_.self.string(), "record", "--out", (options_.keep / task.corpus / task.scenario).string(), "--"};
  argv.insert(argv.end(), {options_.self.string(), "serve-fixture", "--transcript", task.dir.string(), "--report-to",
                           log.string()});
  if (options_.keep_going) argv.emplace_back("--keep-going");
  if (options_.follow_minted) argv.emplace_back("--follow-minted");
  if (!options_.registry.empty()) argv.insert(argv.end(), {"--registry", options_.registry.string()});
  argv.insert(argv.end(), options_.chaos.begin(), options_.chaos.end());
  return argv;
}

ScenarioOutcome ClientRunner::run(const ScenarioTask& task) {
  ScenarioOutcome outcome;
  if (!validate_step(task.dir, options_.validate, outcome)) return outcome;
  outcome.chaos = options_.chaos_label;

  std::error_code ec;
  const fs::path log_dir = options_.work / task.corpus;
  fs::create_directories(log_dir, ec);
  if (ec) {
    outcome.status = Status::error;
    outcome.reason = Error::unreadable(log_dir.string(), ec.message()).render();
    return outcome;
  }
  const fs::path log = log_dir / (task.scenario + ".fixture-log.ndjson");
  fs::remove(log, ec);
  if (!options_.keep.empty()) {
    fs::remove_all(options_.keep / task.corpus / task.scenario, ec);
    fs::create_directories(options_.keep / task.corpus, ec);
  }

  const std::string host_line = shell_quote(host_argv(task, log));
  ClientLaunch launch;
  launch.argv = expand_host(expand_scenario(options_.client, task.dir), host_line);
  launch.variables = {{kCannedHostVariable, host_line}};
  if (!options_.keep_env.empty()) launch.keep_env_dir = options_.keep_env / task.corpus / task.scenario;
  launch.report_log = log;
  launch.timeout_ms = options_.timeout_ms;
  launch.close_timeout_ms = options_.close_timeout_ms;
  const ClientRun run = launcher_->run(launch);
  const FixtureLog fixture = read_log(log);
  fs::remove(log, ec);
  outcome.client = client_json(run, fixture);
  if (!options_.keep.empty() && fs::exists(options_.keep / task.corpus / task.scenario, ec))
    outcome.recording = (options_.keep / task.corpus / task.scenario).string();

  auto verdict = [&](Status status, std::string reason, std::string details = {}) {
    outcome.status = status;
    outcome.reason = std::move(reason);
    outcome.details += details;
    return outcome;
  };
  if (run.spawn_failure) return verdict(Status::error, run.spawn_failure->render());
  if (run.timed_out)
    return verdict(Status::error,
                   fmt::format("the client did not finish within {} ms: its process group was stopped (SIGTERM, then "
                               "SIGKILL)", options_.timeout_ms),
                   tail_details(run));
  if (fixture.starts == 0)
    return verdict(Status::error,
                   fmt::format("the client {} without starting the canned host (it is given as {{host}} and ${})",
                               describe_exit(*run.exit), kCannedHostVariable),
                   tail_details(run));
  if (fixture.starts > 1)
    return verdict(Status::error,
                   fmt::format("the client started the canned host {} times (one session per scenario)", fixture.starts),
                   tail_details(run));
  if (!fixture.error.empty())
    return verdict(Status::error, "the canned host could not play the scenario: " + fixture.error);
  if (!fixture.report)
    return verdict(Status::fail,
                   fmt::format("the canned host ended without its report (stopped by a signal?); the client {}",
                               describe_exit(*run.exit)),
                   tail_details(run));
  const json::object& report = *fixture.report;
  const std::string kind = text_at(report, "kind");
  if (kind == "serveFixtureFailure") {
    std::string details = keep_going_details(report);
    if (details.empty())
      if (const json::array* errors = report.contains("errors") ? report.at("errors").if_array() : nullptr)
        for (const json::value& e : *errors) details += (e.is_string() ? std::string(e.as_string()) : serialize_json(e)) + "\n";
    details += fmt::format("the client {}\n", describe_exit(*run.exit));
    return verdict(Status::fail, first_divergence(report), details + tail_details(run));
  }
  if (kind != "serveFixtureComplete" && kind != "serveFixtureCut")
    return verdict(Status::error, fmt::format("the canned host's report has an unknown kind \"{}\"", kind));
  // A cut on purpose (chaos close-after): the client closed its end as it must; how it exits
  // after losing its host is its own business.
  if (kind == "serveFixtureCut") return verdict(Status::pass, "");
  if (run.exit->shell_code() != 0)
    return verdict(Status::fail, fmt::format("the client {} after the session completed", describe_exit(*run.exit)),
                   tail_details(run));
  return verdict(Status::pass, "");
}

}  // namespace msptk::check
