// run_session: the transcript walked against a live host (replay.hpp, replay_session.hpp).
#include "replay_session.hpp"

#include "frame_feed.hpp"

#include "msptk/differ/signature.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/normalizer/canonical.hpp"
#include "msptk/playback/replay_carry.hpp"
#include "msptk/process/signals.hpp"


#include <fmt/format.h>

namespace msptk::playback {

namespace json = boost::json;

namespace {

constexpr int kFailureGraceMs = 500;  // how long a host may take to exit once a run failed

std::string signature_of(SignatureTracker& tracker, const Frame& frame) {
  auto message = parse_json(frame.json_text());
  Envelope envelope;
  if (message) envelope = classify(*message);
  return tracker.observe(frame, envelope).text();
}

std::string describe_exit(const std::optional<process::ExitStatus>& exit) {
  if (!exit) return "the host closed its stdout";
  if (exit->signaled()) return fmt::format("the host was killed by {}", process::signal_name(exit->signal));
  return fmt::format("the host exited with code {}", exit->code);
}

std::string stop_list(const std::vector<int>& signals) {
  std::string out;
  for (int signo : signals) out += (out.empty() ? "" : ", then ") + process::signal_name(signo);
  return out;
}

std::string describe(const PathDivergence& d) {
  std::string text = d.path.empty() ? std::string("the frame") : d.path;
  if (d.expected || d.actual)
    text += fmt::format(": {} → {}", d.expected.value_or("(absent)"), d.actual.value_or("(absent)"));
  if (!d.note.empty()) text += fmt::format(" ({})", d.note);
  return text;
}

class Session {
 public:
  Session(FrameFeed& feed, HostLink& link, recorder::Tee& tee, LiveSink& sink, FrameComparer& comparer,
          FrameComparer* twin, const SessionConfig& config, ReplayResult& result)
      : feed_(feed), link_(link), tee_(tee), sink_(sink), comparer_(comparer), twin_(twin), config_(config),
        result_(result) {}

  void run() {
    for (; feed_.current() && !failed(); advance()) {
      const Frame& frame = *feed_.current();
      observe_expected(frame);
      if (frame.dir == Direction::client) {
        send(frame);
      } else {
        receive(frame);
      }
    }
    if (const std::optional<Error>& error = feed_.error(); error && !failed())
      fail(3, fmt::format("the transcript could not be read on: {}", error->render()));
    // A host that passed gets the rest of the end phase's timeout to exit, a failed run a short
    // grace; then it is killed.
    auto until = SteadyClock::now() + std::chrono::milliseconds(std::min(config_.timeout_ms, kFailureGraceMs));
    if (!failed()) {
      drain_to_eof();
      until = std::max(until, end_deadline_);
    }
    result_.host_killed = link_.finish(until, config_.close_timeout_ms);
    count_expected();
    result_.host_exit = link_.exit();
    if (failed()) return;
    if (result_.host_killed) {
      result_.report.warnings.push_back(
          fmt::format("the host did not exit within {} ms of its stdin's EOF: msptk sent {} to its process group",
                      config_.timeout_ms, stop_list(link_.stop_signals())));
    } else if (link_.group_outlived_host()) {
      result_.report.warnings.push_back(
          fmt::format("processes of the host's group were still running when it exited: msptk sent {} to them",
                      stop_list(link_.stop_signals())));
    } else if (result_.host_exit && *result_.host_exit != process::ExitStatus{}) {
      result_.report.warnings.push_back(fmt::format("{} at the end", describe_exit(result_.host_exit)));
    }
  }

 private:
  bool failed() const { return result_.exit_code != 0; }
  SteadyClock::time_point deadline() const {
    return SteadyClock::now() + std::chrono::milliseconds(config_.timeout_ms);
  }
  std::string expected_at(const Frame& frame) const { return fmt::format("{}:{}", config_.expected_file, frame.line); }

  // The next recorded frame; the one left behind counted when it is a server frame.
  void advance() {
    if (!feed_.current()) return;  // the rest was counted already (host_gone)
    ++(feed_.current()->dir == Direction::server ? result_.server_frames_expected : result_.client_lines_expected);
    feed_.advance();
  }

  // The server lines of the transcript, all counted: the rest of the feed is read (the session
  // is over, or about to be) and counted.
  std::size_t count_expected() {
    for (; feed_.current(); feed_.advance())
      ++(feed_.current()->dir == Direction::server ? result_.server_frames_expected : result_.client_lines_expected);
    return result_.server_frames_expected;
  }

  void fail(int code, std::string problem) {
    result_.exit_code = code;
    if (result_.stop_problem.empty()) result_.stop_problem = problem;
    // Under keep_going an earlier divergence is the first problem; a later failure still ends the run.
    if (result_.problem.empty() || code == 3) result_.problem = std::move(problem);
  }

  void interrupted() {
    fail(3, fmt::format("interrupted by {}", process::signal_name(link_.interrupted_by())));
  }

  // The host ended (or closed a pipe) before the transcript did: premature host death.
  void host_gone(const Frame& frame, std::string_view what) {
    auto exit = link_.await_exit(SteadyClock::now() + std::chrono::milliseconds(kFailureGraceMs));
    std::string tail;
    if (const std::uint64_t n = tee_.stats(Direction::server).tail.bytes; n > 0)
      tail = fmt::format("; its stdout ended inside a frame, {} bytes after the last LF", n);
    const std::string at = expected_at(frame);  // `frame` is gone once the rest is counted
    const std::string sig = expected_sig_;
    const std::size_t expected = count_expected();
    fail(3, fmt::format("{}: {} before {} {} ({} of {} server frames received{})", at, describe_exit(exit), what, sig,
                        result_.server_frames_received, expected, tail));
  }

  void send(const Frame& recorded) {
    std::string line = carry_learned_values(recorded, twin_ ? twin_->unifier() : comparer_.unifier(), result_.carried);
    live_sigs_text(Frame{Direction::client, line, std::nullopt, sink_.lines() + 1});
    line += '\n';
    tee_.feed(Direction::client, line);  // recorded before it is written, like the recorder
    switch (link_.write(line, deadline())) {
      case HostLink::Event::done: ++result_.client_lines_sent; return;
      case HostLink::Event::timeout:
        fail(1, fmt::format("{}: timed out after {} ms writing {} (the host does not read its stdin)",
                            expected_at(recorded), config_.timeout_ms, expected_sig_));
        return;
      case HostLink::Event::interrupted: interrupted(); return;
      default: host_gone(recorded, "reading"); return;
    }
  }

  std::string live_sigs_text(const Frame& frame) { return signature_of(live_sigs_, frame); }

  // The recorded frame at the cursor: its signature, and what a live frame with the same bytes
  // needs of it (its envelope, the id copied out of the parsed frame, its role), so that such a
  // frame is not parsed again.
  void observe_expected(const Frame& frame) {
    Envelope envelope;
    {
      auto message = parse_json(frame.json_text());
      if (message) envelope = classify(*message);
      expected_id_.reset();
      if (envelope.id) expected_id_.emplace(*envelope.id);
      envelope.id = expected_id_ ? &*expected_id_ : nullptr;
    }  // the DOM of a multi-MiB frame is freed before the live one is read
    expected_sig_ = expected_sigs_.observe(frame, envelope).text();
    expected_role_ = FrameRole::of(frame.dir, envelope);
    expected_envelope_ = std::move(envelope);
  }

  // A live frame with the bytes of the recorded one has its envelope: only its signature is
  // tracked, nothing parsed.
  std::string live_sig_of_same(const Frame& live) {
    Envelope envelope = expected_envelope_;
    envelope.id = expected_id_ ? &*expected_id_ : nullptr;
    return live_sigs_.observe(live, envelope).text();
  }

  Frame next_live() {
    Frame live = std::move(sink_.server_frames().front());
    sink_.server_frames().pop_front();
    ++result_.server_frames_received;
    return live;
  }

  void receive(const Frame& expected) {
    switch (link_.wait_frame(deadline())) {
      case HostLink::Event::frame: break;
      case HostLink::Event::timeout:
        missing(expected);
        fail(1, fmt::format("{}: timed out after {} ms waiting for {}", expected_at(expected), config_.timeout_ms,
                            expected_sig_));
        return;
      case HostLink::Event::interrupted: interrupted(); return;
      default:
        missing(expected);
        host_gone(expected, "sending");
        return;
    }
    Frame live = next_live();
    const std::size_t live_line = live.line;
    std::string live_sig;
    FrameComparison cmp;
    if (live.dir == expected.dir && live.wire_bytes() == expected.wire_bytes()) {
      // The recorded bytes: the live copy is dropped before anything is parsed (a multi-MiB
      // frame is held once, not twice beside its DOM).
      live_sig = live_sig_of_same(live);
      live = Frame{};
      cmp = comparer_.compare_same(expected, live_line, expected_role_);
      if (twin_) (void)twin_->compare_same(expected, live_line, expected_role_);
    } else {
      live_sig = live_sigs_text(live);
      cmp = comparer_.compare(expected, live);
      if (twin_) (void)twin_->compare(expected, live);
    }
    DiffCounts& c = result_.report.counts;
    if (cmp.outcome == FrameOutcome::identical) {
      ++c.identical;
      return;
    }
    const bool divergent = cmp.outcome == FrameOutcome::divergent;
    ++(divergent ? c.divergent : c.equivalent);
    if (divergent) {
      const auto& d = cmp.divergences;
      std::string more = d.size() > 1 ? fmt::format(" (and {} more)", d.size() - 1) : "";
      std::string problem = fmt::format("{}: {} diverges{}{}", expected_at(expected), expected_sig_,
                                        d.empty() ? std::string() : " at " + describe(d[0]), more);
      if (!config_.keep_going) fail(1, std::move(problem));
      else if (result_.problem.empty()) result_.problem = std::move(problem);  // the first one; run_session sets exit 1
    }
    result_.report.entries.push_back(DiffEntry{divergent ? EntryKind::divergent : EntryKind::equivalent, expected.line,
                                               live_line, expected_sig_,
                                               live_sig == expected_sig_ ? std::string() : live_sig,
                                               std::move(cmp.divergences)});
  }

  void missing(const Frame& expected) {
    ++result_.report.counts.missing;
    result_.report.entries.push_back(DiffEntry{EntryKind::missing, expected.line, 0, expected_sig_, {}, {}});
  }

  // The transcript is through: every server frame still to come is extra. The host's stdin is
  // closed and its stdout read until EOF, within the timeout.
  void drain_to_eof() {
    link_.close_stdin();
    const auto until = end_deadline_ = deadline();
    while (true) {
      const HostLink::Event event = link_.wait_frame(until);
      if (event == HostLink::Event::interrupted) return interrupted();
      if (event != HostLink::Event::frame) {
        if (event == HostLink::Event::timeout)
          result_.report.warnings.push_back(fmt::format(
              "the host kept its stdout open {} ms after its stdin's EOF: frames after that were not checked",
              config_.timeout_ms));
        break;
      }
      Frame live = next_live();
      const std::string sig = live_sigs_text(live);
      ++result_.report.counts.extra;
      result_.report.entries.push_back(DiffEntry{EntryKind::extra, 0, live.line, sig, {}, {}});
      if (!failed())
        fail(1, fmt::format("{}:{}: extra {} after the transcript's last frame", config_.actual_file, live.line, sig));
    }
    const recorder::Unterminated& u = tee_.stats(Direction::server).tail;
    // The bytes themselves when held, else (spilled to OUT) their first bytes.
    const std::string& tail = tee_.stats(Direction::server).unterminated.empty() ? u.head
                                                                                 : tee_.stats(Direction::server).unterminated;
    if (u.bytes > 0) {
      ++result_.report.counts.extra;
      result_.report.entries.push_back(
          DiffEntry{EntryKind::extra, 0, 0, "server unterminated frame",
                    {}, {PathDivergence{"", std::nullopt, compact_json(json::string(tail)), "no LF before EOF"}}});
      if (!failed())
        fail(1, fmt::format("{}: the host's stdout ended with {} bytes after its last LF (an unterminated frame)",
                            config_.actual_file, u.bytes));
    }
  }

  FrameFeed& feed_;
  HostLink& link_;
  recorder::Tee& tee_;
  LiveSink& sink_;
  FrameComparer& comparer_;
  FrameComparer* twin_;
  const SessionConfig& config_;
  ReplayResult& result_;
  SignatureTracker expected_sigs_;  // the recorded frames' signatures, learned in order
  std::string expected_sig_;        // of the recorded frame at the cursor
  Envelope expected_envelope_;      // its envelope (id: null, see expected_id_)
  std::optional<json::value> expected_id_;  // its id, copied out of its DOM
  FrameRole expected_role_;
  SignatureTracker live_sigs_;
  SteadyClock::time_point end_deadline_{};
};

}  // namespace

void run_session(FrameFeed& feed, HostLink& link, recorder::Tee& tee, LiveSink& sink, FrameComparer& comparer,
                 FrameComparer* twin, const SessionConfig& config, ReplayResult& result) {
  result.server_frames_expected = 0;
  result.client_lines_expected = 0;
  Session(feed, link, tee, sink, comparer, twin, config, result).run();
  result.report.masks = comparer.accounting();
  const DiffCounts& c = result.report.counts;
  result.report.verdict = c.divergent + c.missing + c.extra + c.moved > 0 ? Verdict::divergent
                          : c.equivalent > 0                             ? Verdict::equivalent
                                                                         : Verdict::identical;
  if (result.exit_code == 0 && result.report.verdict == Verdict::divergent) result.exit_code = 1;
}

}  // namespace msptk::playback
