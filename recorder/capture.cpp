#include "msptk/recorder/capture.hpp"

#include "msptk/process/signals.hpp"
#include "msptk/recorder/clock.hpp"
#include "msptk/transcript/sha256.hpp"
#include "msptk/transcript/writer.hpp"

#include <fmt/format.h>

#include <ctime>

namespace msptk::recorder {

namespace json = boost::json;

std::string format_utc(std::chrono::system_clock::time_point at) {
  using namespace std::chrono;
  const auto ms = duration_cast<milliseconds>(at.time_since_epoch()).count();
  std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  long millis = static_cast<long>(ms % 1000);
  if (millis < 0) {
    millis += 1000;
    --seconds;
  }
  std::tm tm{};
  ::gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
}

namespace {

json::object unterminated_json(const Unterminated& u) {
  return json::object{{"bytes", u.bytes},
                      {"sha256", u.bytes ? u.sha256 : sha256_hex("")},
                      {"head", base64_encode(u.head)},
                      {"tail", base64_encode(u.tail)},
                      {"file", u.file.empty() ? json::value(nullptr) : json::value(u.file)},
                      {"withheld", u.withheld}};
}

json::object direction_json(const Tee* tee, Direction dir) {
  DirectionStats empty;
  const DirectionStats& s = tee ? tee->stats(dir) : empty;
  return json::object{{"frames", s.frames},
                      {"bytes", s.bytes},
                      {"emptyLines", s.empty_lines},
                      {"unterminated", unterminated_json(s.tail)}};
}

}  // namespace

json::object capture_json(const CaptureInfo& info) {
  json::object out;
  out["recorder"] = "msptk record";
  out["status"] = info.ended_at ? "complete" : "recording";
  json::array argv;
  for (const auto& arg : info.host_argv) argv.emplace_back(arg);
  out["host"] = json::object{{"argv", std::move(argv)}};
  out["startedAt"] = info.started_at;
  out["endedAt"] = info.ended_at ? json::value(*info.ended_at) : json::value(nullptr);
  out["client"] = direction_json(info.tee, Direction::client);
  out["server"] = direction_json(info.tee, Direction::server);
  out["hostStderrBytes"] = info.host_stderr_bytes;
  if (!info.exit) {
    out["exit"] = nullptr;
  } else if (info.exit->signaled()) {
    out["exit"] = json::object{{"signal", info.exit->signal}, {"signalName", process::signal_name(info.exit->signal)}};
  } else {
    out["exit"] = json::object{{"code", info.exit->code}};
  }
  json::array signals;
  for (int signo : info.signals_forwarded) signals.emplace_back(process::signal_name(signo));
  out["signalsForwarded"] = std::move(signals);
  out["closeTimeoutMs"] = info.stop.close_timeout_ms;
  out["hostDidNotExit"] = info.stop.host_did_not_exit;
  json::array stops;
  for (int signo : info.stop.stop_signals) stops.emplace_back(process::signal_name(signo));
  out["stopSignals"] = std::move(stops);
  out["groupOutlivedHost"] = info.stop.group_outlived_host;
  out["clientGone"] = info.client_gone;
  out["fingerprintSource"] = info.fingerprint_source;
  json::array flagged;
  if (info.tee) {
    for (const auto& f : info.tee->flagged())
      flagged.emplace_back(
          json::object{{"line", f.line}, {"dir", to_string(f.dir)}, {"reason", f.reason}, {"bytes", f.bytes}});
  }
  out["flagged"] = std::move(flagged);
  json::array names;
  for (const auto& name : info.environment.names) names.emplace_back(name);
  out["environment"] = json::object{{"mode", info.environment.hermetic ? "hermetic" : "inherited"},
                                    {"hermetic", info.environment.hermetic},
                                    {"variables", std::move(names)}};
  json::array paths, warnings;
  std::size_t distinct = 0;
  if (info.redactor) {
    for (const auto& count : info.redactor->counts())
      paths.emplace_back(json::object{{"path", count.path}, {"values", count.values}});
    for (const auto& w : info.redactor->warnings())
      warnings.emplace_back(json::object{{"file", w.file.empty() ? "transcript.ndjson" : w.file},
                                         {"line", w.line},
                                         {"dir", to_string(w.dir)},
                                         {"location", w.location},
                                         {"method", w.method},
                                         {"message", w.message}});
    distinct = info.redactor->distinct_values();
  }
  out["redaction"] = json::object{
      {"paths", std::move(paths)}, {"distinctValues", distinct}, {"warnings", std::move(warnings)}};
  if (info.wire_log) out["wireLog"] = json::object{{"file", *info.wire_log}, {"chunks", info.wire_log_chunks}};
  else out["wireLog"] = nullptr;
  return out;
}

}  // namespace msptk::recorder
