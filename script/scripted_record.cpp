#include "msptk/script/scripted_record.hpp"

#include "msptk/process/fd_io.hpp"
#include "msptk/process/signals.hpp"
#include "msptk/script/fd_link.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <thread>
#include <unistd.h>

namespace msptk::script {

namespace json = boost::json;

namespace {

// A pipe whose ends are closed on exec (the host must not inherit the player's side).
Result<std::pair<int, int>> make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return Error{ErrorKind::peer, fmt::format("cannot create a pipe: {}", std::strerror(errno)), {}, 0, {}};
  return std::pair<int, int>{fds[0], fds[1]};
}

json::object script_capture(const Script& script, const PlayOutcome& play) {
  json::value failure = nullptr;
  if (play.failure)
    failure = json::object{{"line", play.failure->line}, {"rule", play.failure->rule}, {"message", play.failure->message}};
  return json::object{{"status", play.complete() ? "complete" : "incomplete"},
                      {"script", json::object{{"file", script.file},
                                              {"sha256", script.sha256},
                                              {"steps", script.steps.size()},
                                              {"stepsPlayed", play.steps_played},
                                              {"failure", std::move(failure)}}}};
}

}  // namespace

Result<ScriptedRecordOutcome> record_script(const Script& script, const recorder::RecordOptions& options,
                                            const PlayOptions& play_options, recorder::RecordEnv& env) {
  auto to_host = make_pipe();  // player -> recorder (the client's stdin)
  if (!to_host) return to_host.error();
  auto from_host = make_pipe();  // recorder -> player (the client's stdout)
  if (!from_host) {
    ::close(to_host->first);
    ::close(to_host->second);
    return from_host.error();
  }
  auto abandon = make_pipe();  // player -> recorder: the player gave up on a frame the host did not read
  if (!abandon) {
    for (int fd : {to_host->first, to_host->second, from_host->first, from_host->second}) ::close(fd);
    return abandon.error();
  }
  // The recorder's ends, closed once the session is over (the player then sees the end).
  int recorder_in = to_host->first, recorder_out = from_host->second, recorder_abandon = abandon->first;
  (void)process::set_nonblocking(recorder_in, true);
  (void)process::set_nonblocking(recorder_out, true);
  auto close_recorder_ends = [&] {
    if (recorder_in >= 0) ::close(recorder_in);
    if (recorder_out >= 0) ::close(recorder_out);
    if (recorder_abandon >= 0) ::close(recorder_abandon);
    recorder_in = recorder_out = recorder_abandon = -1;
  };
  process::SigpipeIgnored sigpipe;  // a host gone while the player writes is an error, not a signal

  PlayOutcome played;
  std::thread player([&, link_in = from_host->first, link_out = to_host->second, give_up = abandon->second] {
    FdLink link(link_in, link_out);
    played = play(script, link, play_options);
    // A frame the host stopped reading: the recorder would wait for it forever, so it is told to
    // end the client's side now (its stop ladder then ends the host).
    if (link.stalled()) (void)process::write_all(give_up, "x");
    ::close(give_up);
    link.close_send();
    link.drain();
  });
  auto finish = [&] {
    close_recorder_ends();
    if (player.joinable()) player.join();
  };

  recorder::RecordOptions record_options = options;
  record_options.seeds_extra["commandIdSeed"] = play_options.seed;
  recorder::RecordEnv scripted = env;
  scripted.wiring.client_in = recorder_in;
  scripted.wiring.client_out = recorder_out;
  scripted.wiring.client_abandon = recorder_abandon;
  scripted.client_done = [&] {
    finish();
    return script_capture(script, played);
  };
  auto recorded = recorder::record(record_options, scripted);
  finish();
  if (!recorded) return recorded.error();
  return ScriptedRecordOutcome{std::move(*recorded), std::move(played)};
}

}  // namespace msptk::script
