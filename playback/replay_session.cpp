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
        result_(result) {
    if (const chaos::ChaosRun* run = config_.chaos) {
      planner_.emplace(run->spec, run->seed, "client frame");
      merge_rng_ = chaos::Rng(run->seed ^ 0x4D45524745000000ull);
      merge_target_ = next_merge_target();
      if (run->spec.stall_ms) {
        stall_.emplace(*run->spec.stall_ms, run->seed);
        link_.stall_with(&*stall_);
      }
    }
  }
  ~Session() { link_.stall_with(nullptr); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // What the chaos did last (the perturbation in force), "" without chaos.
  std::string in_force() const {
    if (!planner_) return {};
    std::string text = planner_->describe_last();
    if (stall_ && stall_->done()) text += "; " + stall_->describe("the host");
    if (cut_) text += fmt::format("; the host's stdin closed after {} client frames (close-after)", sent_frames_);
    return text;
  }
  bool cut() const { return cut_; }
  std::size_t sent_frames() const { return sent_frames_; }

  void run() {
    for (; feed_.current() && !failed() && !cut_; advance()) {
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
    if (!failed() && !cut_) flush_pending();
    auto until = SteadyClock::now() + std::chrono::milliseconds(std::min(config_.timeout_ms, kFailureGraceMs));
    if (!failed()) {
      if (cut_) after_cut();
      else drain_to_eof();
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
  void host_gone(const Frame& frame, std::string_view what) { host_gone_at(expected_at(frame), expected_sig_, what); }

  void host_gone_at(const std::string& at, const std::string& sig, std::string_view what) {
    auto exit = link_.await_exit(SteadyClock::now() + std::chrono::milliseconds(kFailureGraceMs));
    std::string tail;
    if (const std::uint64_t n = tee_.stats(Direction::server).tail.bytes; n > 0)
      tail = fmt::format("; its stdout ended inside a frame, {} bytes after the last LF", n);
    const std::size_t expected = count_expected();
    fail(3, fmt::format("{}: {} before {} {} ({} of {} server frames received{})", at, describe_exit(exit), what, sig,
                        result_.server_frames_received, expected, tail));
  }

  void send(const Frame& recorded) {
    std::string line = carry_learned_values(recorded, twin_ ? twin_->unifier() : comparer_.unifier(), result_.carried);
    live_sigs_text(Frame{Direction::client, line, std::nullopt, sink_.lines() + 1});
    line += '\n';
    if (planner_) return queue(recorded, line);
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

  std::uint64_t next_merge_target() {
    return config_.chaos->spec.merge ? merge_rng_.uniform(2, chaos::kMaxMergedFrames) : 1;
  }

  // Under chaos a client line waits in `pending_` until msptk next waits for a server frame (or
  // merge's group is full), then the pending lines are written as the plan cuts them.
  void queue(const Frame& recorded, const std::string& line) {
    std::string wire = line;
    // A line recorded with its CR (a framing scenario) keeps it; no second CR is added.
    if (config_.chaos->spec.cr && !(wire.size() >= 2 && wire[wire.size() - 2] == '\r'))
      wire.insert(wire.size() - 1, 1, '\r');
    pending_ += wire;
    pending_tee_ += line;
    ++pending_frames_;
    pending_at_ = expected_at(recorded);
    pending_sig_ = expected_sig_;
    if (pending_frames_ >= merge_target_) flush_pending();
  }

  void flush_pending() {
    if (pending_.empty() || failed() || cut_) return;
    std::string_view wire = pending_, recorded = pending_tee_;
    std::size_t frames = pending_frames_;
    bool cutting = false;
    if (const auto& close_after = config_.chaos->spec.close_after) {
      std::size_t counted = sent_frames_;
      const std::size_t at = chaos::cut_offset(wire, counted, *close_after);
      if (at != std::string_view::npos) {
        cutting = true;
        frames = *close_after - sent_frames_;
        wire = wire.substr(0, at);
        std::size_t end = 0;
        for (std::size_t i = 0; i < frames; ++i) end = recorded.find('\n', end) + 1;
        recorded = recorded.substr(0, end);
      }
    }
    tee_.feed(Direction::client, recorded);  // recorded before it is written, like the recorder
    const std::vector<chaos::Write> writes = planner_->plan(wire);
    if (config_.chaos->spec.cr) planner_->note_cr();
    const std::string at = pending_at_, sig = pending_sig_;
    const std::string bytes(wire);  // `wire` views pending_, emptied next
    pending_.clear();
    pending_tee_.clear();
    pending_frames_ = 0;
    merge_target_ = next_merge_target();
    for (const chaos::Write& w : writes) {
      if (w.pause_us) link_.idle(std::chrono::microseconds(w.pause_us));
      switch (link_.write(std::string_view(bytes).substr(w.offset, w.size), deadline())) {
        case HostLink::Event::done: continue;
        case HostLink::Event::timeout:
          fail(1, fmt::format("{}: timed out after {} ms writing {} (the host does not read its stdin)", at,
                              config_.timeout_ms, sig));
          return;
        case HostLink::Event::interrupted: interrupted(); return;
        default: host_gone_at(at, sig, "reading"); return;
      }
    }
    result_.client_lines_sent += frames;
    sent_frames_ += frames;
    if (cutting) {
      link_.close_stdin();
      cut_ = true;
    }
  }

  // The host's stdin was closed on purpose (close-after): what it still writes is read and not
  // judged, and it must exit within the timeout, as a host must when its client goes away.
  void after_cut() {
    const auto until = end_deadline_ = deadline();
    while (true) {
      const HostLink::Event event = link_.wait_frame(until);
      if (event == HostLink::Event::interrupted) return interrupted();
      if (event != HostLink::Event::frame) break;
      (void)next_live();
    }
    if (!link_.await_exit(until) && !link_.interrupted_by())
      fail(1, fmt::format("the host's stdin was closed after {} client frames (chaos close-after) and the host did not "
                          "exit within {} ms: a host must end when its client goes away",
                          sent_frames_, config_.timeout_ms));
    if (link_.interrupted_by()) interrupted();
  }

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
    flush_pending();
    if (failed() || cut_) return;
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
  // --chaos (config_.chaos): the write plan, the stall, client lines not yet written.
  std::optional<chaos::WritePlanner> planner_;
  std::optional<chaos::StallPlan> stall_;
  chaos::Rng merge_rng_{0};
  std::uint64_t merge_target_ = 1;
  std::string pending_;      // as written (CR LF under cr)
  std::string pending_tee_;  // as recorded
  std::size_t pending_frames_ = 0;
  std::string pending_at_, pending_sig_;
  std::size_t sent_frames_ = 0;
  bool cut_ = false;
};

}  // namespace

void run_session(FrameFeed& feed, HostLink& link, recorder::Tee& tee, LiveSink& sink, FrameComparer& comparer,
                 FrameComparer* twin, const SessionConfig& config, ReplayResult& result) {
  result.server_frames_expected = 0;
  result.client_lines_expected = 0;
  Session session(feed, link, tee, sink, comparer, twin, config, result);
  session.run();
  result.report.masks = comparer.accounting();
  const DiffCounts& c = result.report.counts;
  result.report.verdict = c.divergent + c.missing + c.extra + c.moved > 0 ? Verdict::divergent
                          : c.equivalent > 0                             ? Verdict::equivalent
                                                                         : Verdict::identical;
  if (result.exit_code == 0 && result.report.verdict == Verdict::divergent) result.exit_code = 1;
  if (const chaos::ChaosRun* run = config.chaos) {
    ReplayResult::Chaos report{chaos::to_string(run->spec), run->seed, {}, {}};
    if (session.cut()) report.cut_after = session.sent_frames();
    if (result.exit_code != 0) {
      report.in_force = session.in_force();
      result.problem += fmt::format(" [under chaos {}: {}]", run->label(), report.in_force);
    }
    result.chaos = std::move(report);
  }
}

}  // namespace msptk::playback
