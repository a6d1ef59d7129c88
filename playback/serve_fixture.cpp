// The player of serve-fixture: matches the client's frames against the recorded client lines
// one at a time and answers each match with the recorded server lines that follow it.
#include "msptk/playback/serve_fixture.hpp"

#include "frame_feed.hpp"
#include "minted_follow.hpp"
#include "script_follow.hpp"

#include "msptk/transcript/json_parse.hpp"

#include "msptk/differ/signature.hpp"
#include "msptk/normalizer/canonical.hpp"
#include "msptk/playback/chaos_stream.hpp"
#include "msptk/playback/member_scan.hpp"
#include "msptk/transcript/correlator.hpp"
#include "msptk/transcript/framing.hpp"
#include "msptk/transcript/redaction.hpp"

#include <boost/json/serialize.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>

namespace msptk::playback {

namespace json = boost::json;

std::string_view to_string(ServeProblem problem) {
  switch (problem) {
    case ServeProblem::frame_divergence: return "frameDivergence";
    case ServeProblem::malformed_client_frame: return "malformedClientFrame";
    case ServeProblem::client_eof: return "clientEof";
    case ServeProblem::client_hung: return "clientHung";
  }
  return "frameDivergence";
}

namespace {

// A frame parsed by the shared strict parser; `why` gets the problem said of the received frame.
std::optional<json::value> parse_frame(std::string_view text, std::string* why = nullptr) {
  auto value = parse_json(text);
  if (!value) {
    if (why) *why = value.error().about("the received frame");
    return std::nullopt;
  }
  return std::move(*value);
}

// Server frames are written in batches of about this many bytes (one write per batch), so a
// long run of server lines between two client lines is never held whole.
constexpr std::size_t kWriteBatchBytes = 1 << 20;

struct Match {
  std::optional<ServeProblem> problem;  // nullopt: the frames match
  std::vector<PathDivergence> divergences;
  std::vector<std::string> errors;
  std::optional<std::string> id_token;  // the client's request id, as it wrote it

  void diverge(std::string note, std::string path = {}) {
    problem = ServeProblem::frame_divergence;
    divergences.push_back(PathDivergence{std::move(path), std::nullopt, std::nullopt, std::move(note)});
  }
};

class Player {
 public:
  Player(const FixtureScript& script, FrameFeed& feed, const MaskSpec& mask, ByteSink& sink,
         ServeFixtureReport& report, const ServeOptions& options)
      : script_(script), feed_(feed), comparer_(mask), sink_(sink), report_(report), verbatim_(options.verbatim),
        keep_going_(options.keep_going), follow_minted_(options.follow_minted) {
    redacted_.accept = mask.accept_redacted;
    if (follow_minted_) report_.substitutions = 0;
    study_current();
  }

  // Every recorded line has been played.
  bool played() const { return !feed_.current(); }

  // Writes the server lines before the first client line. False when the run failed.
  bool open() { return answer(); }

  // One LF-terminated input line. False when the run failed.
  bool take(const FramedLine& line) {
    ++input_line_;
    if (!line.oversized && (line.bytes.empty() || line.bytes == "\r")) {
      ++report_.empty_lines;
      return true;
    }
    if (!feed_.current() && keep_going_) {
      extra(line, received_text(line.bytes), fmt::format("it comes after the last recorded line of {}", script_.transcript));
      return true;
    }
    if (!feed_.current()) {
      ServeFailure& f = fail(ServeProblem::frame_divergence, line);
      f.divergences.push_back(PathDivergence{"", std::nullopt, received_value(line.bytes), "extra client frame"});
      f.errors.push_back(fmt::format("client frame {} (input line {}) comes after the last recorded line of {}: the "
                                     "transcript expects no more client frames, and off-transcript frames are never answered",
                                     report_.client_frames + 1, input_line_, script_.transcript));
      return false;
    }
    const Frame& expected = *feed_.current();
    Frame received{Direction::client, std::string(line.bytes), std::nullopt, input_line_};
    if (keep_going_) return follow(line, received);
    Match match = match_frame(expected, line, received);
    if (match.problem) {
      ServeFailure& f = fail(*match.problem, line);
      f.transcript_line = expected.line;
      f.expected_frame = expected.wire_bytes();
      f.divergences = std::move(match.divergences);
      f.errors.push_back(fmt::format("client frame {} (input line {}{}) does not match {}:{} ({})",
                                     report_.client_frames + 1, input_line_,
                                     line.oversized ? fmt::format(", {} bytes", line.size) : "", script_.transcript,
                                     expected.line, facts_.text));
      for (auto& e : match.errors) f.errors.push_back(std::move(e));
      return false;
    }
    return accept(match);
  }

  // With --keep-going: the frames the log holds become the report's (a failure when any differs).
  void finish() {
    if (!keep_going_) return;
    const bool differed = log_.any();
    KeepGoingReport& kept = report_.keep_going.emplace(std::move(log_.report()));
    kept.client_info = client_info_changes(comparer_);
    if (!differed) return;
    if (report_.failure) {  // the run stopped (the client stopped reading): the differences before it are listed
      for (std::string& e : log_.first()->errors) report_.failure->errors.push_back(std::move(e));
      return;
    }
    report_.failure = std::move(log_.first());
    const KeepGoingReport& k = *report_.keep_going;
    const std::size_t total = k.divergent + k.missing + k.extra;
    report_.failure->errors.push_back(fmt::format("{} client frame{} from the script: {} divergent, {} missing, {} extra",
                                                  total, total == 1 ? " differs" : "s differ", k.divergent, k.missing,
                                                  k.extra));
  }

  // The client closed its end; `framer` holds what came after its last LF.
  void end(const LineFramer& framer, int read_error) {
    const std::string_view tail = framer.pending();
    const bool partial = framer.pending_size() > 0 && tail != "\r";
    const bool stopped = read_error == ECANCELED;  // told to stop (a signal): like an EOF
    if (!partial && (!read_error || stopped) && !feed_.current()) return;  // complete
    if (keep_going_ && (!read_error || stopped)) {
      end_keep_going(framer, stopped);
      return;
    }
    if (!feed_.current()) {
      ServeFailure& f = failure(ServeProblem::frame_divergence);
      f.received_frame = std::string(tail);
      f.received_bytes = framer.pending_size();
      f.divergences.push_back(PathDivergence{"", std::nullopt, received_value(tail), "extra client bytes"});
      f.errors.push_back(fmt::format("after the last recorded line the client sent {} bytes without a closing LF; "
                                     "the transcript expects no more client frames",
                                     framer.pending_size()));
      return;
    }
    const Frame& expected = *feed_.current();
    ServeFailure& f = failure(ServeProblem::client_eof);
    f.transcript_line = expected.line;
    f.expected_frame = expected.wire_bytes();
    if (stopped) {
      f.errors.push_back(fmt::format("the host was stopped (a signal) after {} client frames; the transcript expects "
                                     "{} at {}:{}",
                                     report_.client_frames, facts_.text, script_.transcript, expected.line));
    } else if (read_error) {
      f.errors.push_back(fmt::format("reading the client's frames failed: {}", std::strerror(read_error)));
    } else {
      f.errors.push_back(fmt::format("the client closed the host's stdin after {} client frames; the transcript "
                                     "expects {} at {}:{}",
                                     report_.client_frames, facts_.text, script_.transcript, expected.line));
    }
    if (partial) {
      f.received_frame = std::string(tail);
      f.received_bytes = framer.pending_size();
      f.errors.push_back(fmt::format("the last {} bytes the client sent were not a frame: a frame ends with LF",
                                     framer.pending_size()));
    }
  }

 private:

  // The client frame on `line` against the recorded line at the cursor.
  Match match_frame(const Frame& expected, const FramedLine& line, const Frame& received) {
    return (line.oversized || over_limit(expected)) ? match_oversized(expected, line) : match_whole(expected, received);
  }

  // The frame matched (or, with --keep-going, stands in for) the recorded client line at the
  // cursor: the line's recorded server lines are written. False when the run failed.
  bool accept(Match& match) {
    if (match.id_token && facts_.request) id_tokens_[feed_.index()] = std::move(*match.id_token);
    ++report_.client_frames;
    advance();
    return answer();
  }

  // --keep-going: `received` (input `line`) against the script. False when the run failed.
  bool follow(const FramedLine& line, const Frame& received) {
    const Frame& expected = *feed_.current();
    const bool oversized = line.oversized || over_limit(expected);
    Signature got;
    if (!oversized) {
      std::optional<json::value> message = parse_frame(received.json_text());
      got = received_signature(message, answered_method(message));
    }
    if (oversized ? line.oversized && over_limit(expected) : got == facts_.signature) return stand_in(line, received);
    if (oversized) {
      extra(line, "client frame over frameLimitBytes",
            fmt::format("{}:{} ({}) is not over frameLimitBytes {}, so the host would not read this frame as it",
                        script_.transcript, expected.line, facts_.text, script_.frame_limit));
      return true;
    }
    auto found = look_ahead(feed_, study_, got);
    if (!found) {
      report_.error = found.error();
      return false;
    }
    if (!*found) {
      extra(line, got.text(),
            fmt::format("no recorded client line from {}:{} on (within {} client lines) is a {}", script_.transcript,
                        expected.line, kLookaheadClientLines, got.text()));
      return true;
    }
    skip_to(**found, fmt::format("the client sent a later line first (input line {})", input_line_), &line);
    if (!feed_.current()) {
      if (const std::optional<Error>& error = feed_.error()) report_.error = *error;
      return false;
    }
    return stand_in(line, received);
  }

  // --keep-going: the frame is played against the recorded line at the cursor, a divergence
  // listed, and the line's server lines are written in any case.
  bool stand_in(const FramedLine& line, const Frame& received) {
    const Frame& expected = *feed_.current();
    Match match = match_frame(expected, line, received);
    if (match.problem) {
      ScriptDifference d;
      d.outcome = ScriptOutcome::divergent;
      d.transcript_line = expected.line;
      d.input_line = input_line_;
      d.signature = facts_.text;
      d.received_frame = std::string(line.bytes);
      d.received_bytes = line.size;
      d.divergences = match.divergences;
      std::string error = fmt::format("client frame {} (input line {}{}) does not match {}:{} ({}); it stands in for "
                                      "that line",
                                      report_.client_frames + 1, input_line_,
                                      line.oversized ? fmt::format(", {} bytes", line.size) : "", script_.transcript,
                                      expected.line, facts_.text);
      for (const std::string& e : match.errors) error += "; " + e;
      log_.add(std::move(d), &expected, &received.raw, line.size, std::move(error));
    }
    if (facts_.signature.kind == FrameKind::response) {
      if (auto message = parse_frame(received.json_text()); message && message->is_object())
        if (const json::value* id = message->get_object().if_contains("id")) live_requests_.erase(canonical_json(*id));
    }
    return accept(match);
  }

  // The method of the server request a client response answers (by its id): the recorded line's
  // at the cursor when it is a response with that id, else that of a request written; "" when none.
  std::string answered_method(const std::optional<json::value>& message) const {
    if (!message || !message->is_object()) return {};
    const json::value* id = message->get_object().if_contains("id");
    if (!id) return {};
    const std::string key = canonical_json(*id);
    if (facts_.signature.kind == FrameKind::response && facts_.id == key) return facts_.signature.method;
    auto it = live_requests_.find(key);
    return it == live_requests_.end() ? std::string() : it->second;
  }

  // --keep-going: a client frame found nowhere ahead: listed, not answered.
  void extra(const FramedLine& line, std::string signature, const std::string& why) {
    ScriptDifference d;
    d.outcome = ScriptOutcome::extra;
    d.input_line = input_line_;
    d.signature = std::move(signature);
    d.received_frame = std::string(line.bytes);
    d.received_bytes = line.size;
    std::string error = fmt::format("client frame (input line {}, {}) is extra: {}; it is not answered", input_line_,
                                    d.signature, why);
    const std::string bytes(line.bytes);
    log_.add(std::move(d), feed_.current(), &bytes, line.size, std::move(error));
  }

  // The signature of a received frame, as text ("client request foo/bar").
  std::string received_text(std::string_view bytes) const {
    std::string_view text = bytes;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    std::optional<json::value> message = parse_frame(text);
    const Signature got = received_signature(message, answered_method(message));
    return message ? got.text() : "client frame that is not JSON";
  }

  // --keep-going: the cursor moves to frame `index` (or the end): the client lines passed are
  // missing (`why`), the server lines passed are not written.
  void skip_to(std::size_t index, const std::string& why, const FramedLine* line = nullptr) {
    while (const Frame* frame = feed_.current()) {
      if (feed_.index() >= index) break;
      if (frame->dir == Direction::client) {
        ScriptDifference d;
        d.outcome = ScriptOutcome::missing;
        d.transcript_line = frame->line;
        d.signature = facts_.text;
        const std::string bytes = line ? std::string(line->bytes) : std::string();
        log_.add(std::move(d), frame, line ? &bytes : nullptr,
                 line ? std::optional<std::size_t>(line->size) : std::nullopt,
                 fmt::format("{}:{} ({}) is missing: {}", script_.transcript, frame->line, facts_.text, why));
      } else {
        log_.skipped_server_frame();
        if (facts_.answers) id_tokens_.erase(*facts_.answers);
      }
      advance();
    }
  }

  // --keep-going: the client closed stdin (or the host was stopped): the rest of the script is missing.
  void end_keep_going(const LineFramer& framer, bool stopped) {
    if (framer.pending_size() > 0 && framer.pending() != "\r") {
      ScriptDifference d;
      d.outcome = ScriptOutcome::extra;
      d.signature = "client bytes without a closing LF";
      d.received_frame = std::string(framer.pending());
      d.received_bytes = framer.pending_size();
      const std::string bytes(framer.pending());
      log_.add(std::move(d), feed_.current(), &bytes, framer.pending_size(),
               fmt::format("the last {} bytes the client sent were not a frame: a frame ends with LF",
                           framer.pending_size()));
    }
    skip_to(std::numeric_limits<std::size_t>::max(),
            stopped ? "the host was stopped (a signal) before the client sent it" : "the client closed stdin before it");
    if (const std::optional<Error>& error = feed_.error()) report_.error = *error;
  }

  bool over_limit(const Frame& frame) const { return frame.wire_bytes().size() > script_.frame_limit; }

  ServeFailure& failure(ServeProblem problem) {
    report_.failure.emplace();
    report_.failure->problem = problem;
    return *report_.failure;
  }

  ServeFailure& fail(ServeProblem problem, const FramedLine& line) {
    ServeFailure& f = failure(problem);
    f.received_frame = std::string(line.bytes);
    f.received_bytes = line.size;
    return f;
  }

  static std::optional<std::string> received_value(std::string_view bytes) {
    std::string_view text = bytes;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (auto value = parse_frame(text)) return compact_json(*value);
    return serialize_json(json::string(bytes));
  }

  // The recorded server lines from the cursor up to the next client line, ids spliced, written
  // in batches of about kWriteBatchBytes. False when the run failed.
  bool answer() {
    std::string out;
    std::vector<Written> batch;
    std::string storage;  // a frame with the client's id spliced in
    while (const Frame* frame = feed_.current()) {
      if (frame->dir != Direction::server) break;
      const std::string_view bytes = spliced(*frame, storage);
      if (keep_going_ && facts_.request && facts_.id) live_requests_[*facts_.id] = facts_.signature.method;
      if (!out.empty() && out.size() + bytes.size() >= kWriteBatchBytes && !flush(out, batch)) return false;
      if (bytes.size() >= kWriteBatchBytes) {
        // A large frame is written from where it is, never copied into a batch.
        process::IoResult r = sink_.write(bytes);
        if (!r.error) r = sink_.write("\n");
        if (r.error) return write_failed(frame->line, facts_.text, r.error);
        ++report_.server_frames;
      } else {
        out += bytes;
        out += '\n';
        batch.push_back(Written{out.size(), frame->line, facts_.text});
      }
      advance();
    }
    if (!flush(out, batch)) return false;
    if (sink_.cut()) return cut_at(feed_.current() ? std::optional<std::size_t>(feed_.current()->line) : std::nullopt);
    if (const std::optional<Error>& error = feed_.error()) {
      report_.error = *error;
      return false;
    }
    return true;
  }

  // A server frame in the batch being written: the offset after its LF, its line, its signature.
  struct Written {
    std::size_t end = 0;
    std::size_t line = 0;
    std::string signature;
  };

  // Writes `out` (the frames of `batch`); counts the frames written in full. False on failure.
  bool flush(std::string& out, std::vector<Written>& batch) {
    if (out.empty()) return true;
    process::IoResult r = sink_.write(out);
    std::size_t written = 0;
    while (written < batch.size() && batch[written].end <= r.bytes) ++written;
    report_.server_frames += written;
    if (r.error) return write_failed(batch[written].line, batch[written].signature, r.error);
    out.clear();
    batch.clear();
    return true;
  }

  // Writing the server frame at `line` failed with `error`: the run stops there.
  bool write_failed(std::size_t line, const std::string& signature, int error) {
    if (error == kCutError) return cut_at(line);
    ServeFailure& f = failure(ServeProblem::client_eof);
    f.transcript_line = line;
    f.errors.push_back(fmt::format("writing server frames failed at {}:{} ({}): {}{}", script_.transcript, line,
                                   signature, std::strerror(error),
                                   error == EPIPE ? " (the client stopped reading the host's stdout)" : ""));
    return false;
  }

  // The sink closed the client's stdin on purpose (chaos close-after): the run stops there.
  bool cut_at(std::optional<std::size_t> line) {
    report_.cut = ServeCut{report_.server_frames, line};
    return false;
  }

  // The cursor moves to the next recorded frame, and what it is is learned.
  void advance() {
    feed_.advance();
    study_current();
  }

  void study_current() {
    if (const Frame* frame = feed_.current()) facts_ = study_.observe(*frame, feed_.index());
  }

  // The bytes of a recorded server frame as they are written: a response to a client request
  // carries the client's id, spliced into `storage` (each request is answered once: its id is
  // then forgotten); any other frame is its recorded bytes, not copied.
  std::string_view spliced(const Frame& frame, std::string& storage) {
    std::string_view bytes = frame.wire_bytes();
    if (follow_minted_ && !frame.exact_bytes) {
      if (std::optional<std::string> replaced = minted_.substitute(bytes, *report_.substitutions)) {
        storage = std::move(*replaced);
        bytes = storage;
      }
    }
    if (!facts_.answers) return bytes;
    auto token = id_tokens_.find(*facts_.answers);
    if (token == id_tokens_.end()) return bytes;
    const std::string id = std::move(token->second);
    id_tokens_.erase(token);
    if (verbatim_) return bytes;
    const MemberScan scan = scan_members(bytes);
    std::optional<std::string_view> recorded = scan.token(bytes, "id");
    if (!recorded || *recorded == id) return bytes;
    storage = *splice_member(bytes, "id", id);
    return storage;
  }

  Match match_whole(const Frame& expected, const Frame& received) {
    Match m;
    if (!facts_.json) {
      // A deliberately broken recorded frame: only the same bytes match it.
      if (expected.json_text() != received.json_text())
        m.diverge("the recorded client line is not JSON, so it is matched byte for byte (a trailing CR aside), and "
                  "the received bytes differ");
      return m;
    }
    std::string why;
    std::optional<json::value> message = parse_frame(received.json_text(), &why);
    if (!message) {
      m.problem = ServeProblem::malformed_client_frame;
      m.errors.push_back(why);
      return m;
    }
    FrameComparison c = comparer_.compare(expected, received);
    const MemberScan scan = scan_members(received.json_text());
    if (auto id = scan.token(received.json_text(), "id")) m.id_token = std::string(*id);
    if (c.outcome == FrameOutcome::divergent) {
      const bool followed = follow_minted_ && minted_.settle(c.divergences) && c.divergences.empty();
      if (!followed && !settle_redacted(c.divergences)) {
        m.problem = ServeProblem::frame_divergence;
        m.divergences = std::move(c.divergences);
      }
    }
    return m;
  }

  // Divergences where the recording holds a redaction placeholder (record --redact): with
  // --accept-redacted the client's value is paired with the placeholder (one value per N) and
  // the divergence goes; otherwise its note says why. True when no divergence is left.
  bool settle_redacted(std::vector<PathDivergence>& divergences) {
    std::vector<PathDivergence> kept;
    bool settled = false;
    for (PathDivergence& d : divergences) {
      std::string_view expected = d.expected ? std::string_view(*d.expected) : std::string_view();
      const bool quoted = expected.size() > 2 && expected.front() == '"' && expected.back() == '"';
      const std::string placeholder(quoted ? expected.substr(1, expected.size() - 2) : std::string_view());
      if (!quoted || !is_redaction_placeholder(placeholder)) {
        kept.push_back(std::move(d));
        continue;
      }
      auto add_note = [&](const std::string& note) { d.note = d.note.empty() ? note : d.note + "; " + note; };
      if (!redacted_.accept) {
        add_note(fmt::format("the recorded value was redacted ({}, record --redact): --accept-redacted pairs it "
                             "with the client's value",
                             placeholder));
      } else if (!d.actual) {
        add_note(fmt::format("the recorded value was redacted ({}) and the client sent none", placeholder));
      } else if (auto [it, fresh] = redacted_.pairs.try_emplace(placeholder, *d.actual); !fresh && it->second != *d.actual) {
        add_note(fmt::format("{} was paired with {} earlier", placeholder, it->second));
      } else {
        settled = true;
        continue;
      }
      kept.push_back(std::move(d));
    }
    divergences = std::move(kept);
    return settled && divergences.empty();
  }

  // The members of an object prefix whose values end inside it, parsed; nullopt if one does not parse.
  static std::optional<json::object> members_of(std::string_view text, const MemberScan& scan) {
    json::object out;
    for (const MemberToken& t : scan.members) {
      std::optional<json::value> v = parse_frame(text.substr(t.value_begin, t.value_end - t.value_begin));
      if (!v) return std::nullopt;
      out[t.name] = std::move(*v);
    }
    return out;
  }

  Match match_oversized(const Frame& expected, const FramedLine& line) {
    Match m;
    const std::size_t limit = script_.frame_limit;
    const std::string& recorded = expected.wire_bytes();
    if (over_limit(expected) != line.oversized) {
      m.diverge(line.oversized
                    ? fmt::format("received a frame of {} bytes, over frameLimitBytes {} (the host reads only its first "
                                  "{} bytes and rejects it); the transcript expects a frame of {} bytes",
                                  line.size, limit, limit, recorded.size())
                    : fmt::format("the transcript expects a frame of {} bytes, over frameLimitBytes {} (which the host "
                                  "rejects); received a frame of {} bytes",
                                  recorded.size(), limit, line.size));
      return m;
    }
    // Both over the limit: compare what the host sees of each, their first `limit` bytes.
    const std::string_view ep = std::string_view(recorded).substr(0, limit);
    const std::string_view rp = line.bytes;
    const MemberScan es = scan_members(ep);
    const MemberScan rs = scan_members(rp);
    std::optional<json::object> eo = es.object && !es.malformed ? members_of(ep, es) : std::nullopt;
    std::optional<json::object> ro = rs.object && !rs.malformed ? members_of(rp, rs) : std::nullopt;
    if (!ro) {
      if (!eo) {
        if (ep != rp)
          m.diverge(fmt::format("neither frame's first {} bytes start a JSON object; they are compared byte for byte "
                                "and differ",
                                limit));
        return m;
      }
      m.problem = ServeProblem::malformed_client_frame;
      m.errors.push_back(fmt::format("the received frame ({} bytes, over frameLimitBytes {}) does not start with a "
                                     "JSON object in its first {} bytes",
                                     line.size, limit, limit));
      return m;
    }
    if (!eo) {
      m.diverge(fmt::format("the recorded frame's first {} bytes do not start a JSON object; the received frame's do",
                            limit));
      return m;
    }
    // Members complete on both sides are compared; one cut by the limit on either side is not.
    // The id is the exception: the host answers with it only when it is complete in the prefix.
    json::object ecommon, rcommon;
    for (const auto& member : *eo) {
      if (const json::value* other = ro->if_contains(member.key())) {
        ecommon[member.key()] = member.value();
        rcommon[member.key()] = *other;
      } else if (member.key() == "id") {
        m.divergences.push_back(PathDivergence{"id", compact_json(member.value()), std::nullopt,
                                               fmt::format("the host recovers a request id from an oversized frame's "
                                                           "first {} bytes: the recorded frame has one there, the "
                                                           "received frame has none",
                                                           limit)});
      }
    }
    if (const json::value* id = ro->if_contains("id"); id && !eo->contains("id")) {
      m.divergences.push_back(PathDivergence{"id", std::nullopt, compact_json(*id),
                                             fmt::format("the host recovers a request id from an oversized frame's "
                                                         "first {} bytes: the received frame has one there, the "
                                                         "recorded frame has none",
                                                         limit)});
    }
    Frame ef{Direction::client, json::serialize(ecommon), std::nullopt, expected.line};
    Frame rf{Direction::client, json::serialize(rcommon), std::nullopt, input_line_};
    FrameComparison c = comparer_.compare(ef, rf);
    for (auto& d : c.divergences) m.divergences.push_back(std::move(d));
    if (follow_minted_) minted_.settle(m.divergences);
    if (auto id = rs.token(rp, "id")) m.id_token = std::string(*id);
    if (!m.divergences.empty()) {
      m.problem = ServeProblem::frame_divergence;
      m.errors.push_back(fmt::format("both frames are over frameLimitBytes {}: they are compared on the top-level "
                                     "members complete within their first {} bytes",
                                     limit, limit));
      return m;
    }
    return m;
  }

  const FixtureScript& script_;
  FrameFeed& feed_;
  FrameStudy study_;
  FrameFacts facts_;  // of the frame at the cursor
  FrameComparer comparer_;
  MintedFollow minted_{comparer_};
  struct {
    bool accept = false;
    std::map<std::string, std::string> pairs;  // placeholder -> the client's value (compact JSON)
  } redacted_;
  ByteSink& sink_;
  ServeFixtureReport& report_;
  std::size_t input_line_ = 0;  // LF-terminated input lines read
  // Recorded requests not yet answered: their index -> the client's id token.
  std::map<std::size_t, std::string> id_tokens_;
  bool verbatim_ = false;                         // --verbatim: no id splice
  bool keep_going_ = false;                       // --keep-going
  bool follow_minted_ = false;                    // --follow-minted
  ScriptLog log_;                                 // --keep-going: what differed
  // --keep-going: server requests written and not answered yet: id (canonical JSON) -> method.
  std::map<std::string, std::string> live_requests_;
};

// After a cut (chaos close-after), the client must close its end: what it still sends is read
// and not judged, until its EOF (or a stop signal) within the grace; else it hung.
void await_client_close(ByteSource& from_client, ServeFixtureReport& report, int grace_ms) {
  std::vector<char> buffer(65536);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    process::IoResult r = from_client.read_within(buffer.data(), buffer.size(), static_cast<int>(std::max<long long>(0, left)));
    if (r.eof || (r.error && r.error != ETIMEDOUT)) return;
    if (r.error == ETIMEDOUT || left <= 0) break;
  }
  report.failure.emplace();
  ServeFailure& f = *report.failure;
  f.problem = ServeProblem::client_hung;
  f.transcript_line = report.cut->transcript_line;
  f.errors.push_back(fmt::format("the host's stdout was closed after {} server frames (chaos close-after) and the "
                                 "client did not close the host's stdin within {} ms: a client must see the EOF of "
                                 "its host's stdout and end the session",
                                 report.cut->server_frames, grace_ms));
}

}  // namespace

namespace {

// Reads the client's frames into `player` until the run is over.
void run(Player& player, const FixtureScript& script, ByteSource& from_client, const ServeOptions& options) {
  if (!player.open()) return;
  // Played through: complete, whatever the client still sends (it is not read).
  if (!options.until_eof && player.played()) return;
  LineFramer framer(script.frame_limit);
  std::vector<char> buffer(65536);
  bool running = true;
  while (running) {
    process::IoResult r = from_client.read(buffer.data(), buffer.size());
    if (r.eof || r.error) {
      player.end(framer, r.eof ? 0 : r.error);
      break;
    }
    framer.feed(std::string_view(buffer.data(), r.bytes), [&](const FramedLine& line) {
      if (running) running = player.take(line) && (options.until_eof || !player.played());
    });
  }
}

}  // namespace

ServeFixtureReport serve_fixture(const FixtureScript& script, const MaskSpec& mask, ByteSource& from_client,
                                 ByteSink& to_client, const ServeOptions& options) {
  ServeFixtureReport report;
  report.scenario = script.id();
  report.transcript = script.transcript;
  std::optional<FrameFeed> feed;
  if (!script.stream) {
    feed.emplace(script.frames);
  } else if (auto opened = FrameFeed::open(script.transcript)) {
    feed.emplace(std::move(*opened));
  } else {
    report.error = opened.error();
    return report;
  }
  Player player(script, *feed, mask, to_client, report, options);
  run(player, script, from_client, options);
  player.finish();
  // Cut on purpose (chaos close-after): the client must now close its end within the grace.
  if (report.cut && !report.failure) await_client_close(from_client, report, options.cut_grace_ms);
  return report;
}

}  // namespace msptk::playback
