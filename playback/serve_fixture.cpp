// The player of serve-fixture: matches the client's frames against the recorded client lines
// one at a time and answers each match with the recorded server lines that follow it.
#include "msptk/playback/serve_fixture.hpp"

#include "msptk/transcript/json_parse.hpp"

#include "msptk/differ/signature.hpp"
#include "msptk/normalizer/canonical.hpp"
#include "msptk/playback/member_scan.hpp"
#include "msptk/transcript/correlator.hpp"
#include "msptk/transcript/framing.hpp"
#include "msptk/transcript/redaction.hpp"

#include <boost/json/serialize.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <map>

namespace msptk::playback {

namespace json = boost::json;

std::string_view to_string(ServeProblem problem) {
  switch (problem) {
    case ServeProblem::frame_divergence: return "frameDivergence";
    case ServeProblem::malformed_client_frame: return "malformedClientFrame";
    case ServeProblem::client_eof: return "clientEof";
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

// What the recorded transcript says about each of its frames, computed once.
struct FrameFacts {
  bool json = false;                 // the frame parses
  bool request = false;              // a request (its id is the sender's to mint)
  std::string signature;             // "client request session/start"
  std::optional<std::size_t> answers;  // server responses: index of the client request answered
};

std::vector<FrameFacts> study(const std::vector<Frame>& frames) {
  std::vector<FrameFacts> facts(frames.size());
  Correlator correlator;
  SignatureTracker signatures;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    std::optional<json::value> message = parse_frame(frames[i].json_text());
    if (!message) {
      facts[i].signature = fmt::format("{} frame that is not JSON", to_string(frames[i].dir));
      continue;
    }
    const Envelope envelope = classify(*message);
    facts[i].json = true;
    facts[i].request = envelope.kind == FrameKind::request;
    facts[i].signature = signatures.observe(frames[i], envelope).text();
    // Lines are indexes + 1 here, whatever the frames' own line numbers are.
    Correlator::Outcome outcome = correlator.observe(frames[i].dir, envelope, i + 1);
    if (outcome.answered && outcome.answered->dir == Direction::client && frames[i].dir == Direction::server)
      facts[i].answers = outcome.answered->line - 1;
  }
  return facts;
}

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
  Player(const FixtureScript& script, const MaskSpec& mask, ByteSink& sink, ServeFixtureReport& report, bool verbatim)
      : script_(script), frames_(script.frames), facts_(study(script.frames)), comparer_(mask), sink_(sink),
        report_(report), verbatim_(verbatim) {
    redacted_.accept = mask.accept_redacted;
  }

  // Every recorded line has been played.
  bool played() const { return next_ >= frames_.size(); }

  // Writes the server lines before the first client line. False when the run failed.
  bool open() { return answer(); }

  // One LF-terminated input line. False when the run failed.
  bool take(const FramedLine& line) {
    ++input_line_;
    if (!line.oversized && (line.bytes.empty() || line.bytes == "\r")) {
      ++report_.empty_lines;
      return true;
    }
    if (next_ >= frames_.size()) {
      ServeFailure& f = fail(ServeProblem::frame_divergence, line);
      f.divergences.push_back(PathDivergence{"", std::nullopt, received_value(line.bytes), "extra client frame"});
      f.errors.push_back(fmt::format("client frame {} (input line {}) comes after the last recorded line of {}: the "
                                     "transcript expects no more client frames, and off-transcript frames are never answered",
                                     report_.client_frames + 1, input_line_, script_.transcript));
      return false;
    }
    const Frame& expected = frames_[next_];
    Frame received{Direction::client, std::string(line.bytes), std::nullopt, input_line_};
    Match match = (line.oversized || over_limit(expected)) ? match_oversized(expected, line)
                                                          : match_whole(expected, received);
    if (match.problem) {
      ServeFailure& f = fail(*match.problem, line);
      f.transcript_line = expected.line;
      f.expected_frame = expected.wire_bytes();
      f.divergences = std::move(match.divergences);
      f.errors.push_back(fmt::format("client frame {} (input line {}{}) does not match {}:{} ({})",
                                     report_.client_frames + 1, input_line_,
                                     line.oversized ? fmt::format(", {} bytes", line.size) : "", script_.transcript,
                                     expected.line, facts_[next_].signature));
      for (auto& e : match.errors) f.errors.push_back(std::move(e));
      return false;
    }
    if (match.id_token && facts_[next_].request) id_tokens_[next_] = std::move(*match.id_token);
    ++report_.client_frames;
    ++next_;
    return answer();
  }

  // The client closed its end; `framer` holds what came after its last LF.
  void end(const LineFramer& framer, int read_error) {
    const std::string_view tail = framer.pending();
    const bool partial = framer.pending_size() > 0 && tail != "\r";
    const bool stopped = read_error == ECANCELED;  // told to stop (a signal): like an EOF
    if (!partial && (!read_error || stopped) && next_ >= frames_.size()) return;  // complete
    if (next_ >= frames_.size()) {
      ServeFailure& f = failure(ServeProblem::frame_divergence);
      f.received_frame = std::string(tail);
      f.received_bytes = framer.pending_size();
      f.divergences.push_back(PathDivergence{"", std::nullopt, received_value(tail), "extra client bytes"});
      f.errors.push_back(fmt::format("after the last recorded line the client sent {} bytes without a closing LF; "
                                     "the transcript expects no more client frames",
                                     framer.pending_size()));
      return;
    }
    const Frame& expected = frames_[next_];
    ServeFailure& f = failure(ServeProblem::client_eof);
    f.transcript_line = expected.line;
    f.expected_frame = expected.wire_bytes();
    if (stopped) {
      f.errors.push_back(fmt::format("the host was stopped (a signal) after {} client frames; the transcript expects "
                                     "{} at {}:{}",
                                     report_.client_frames, facts_[next_].signature, script_.transcript, expected.line));
    } else if (read_error) {
      f.errors.push_back(fmt::format("reading the client's frames failed: {}", std::strerror(read_error)));
    } else {
      f.errors.push_back(fmt::format("the client closed the host's stdin after {} client frames; the transcript "
                                     "expects {} at {}:{}",
                                     report_.client_frames, facts_[next_].signature, script_.transcript, expected.line));
    }
    if (partial) {
      f.received_frame = std::string(tail);
      f.received_bytes = framer.pending_size();
      f.errors.push_back(fmt::format("the last {} bytes the client sent were not a frame: a frame ends with LF",
                                     framer.pending_size()));
    }
  }

 private:
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

  // The recorded server lines from next_ up to the next client line, ids spliced, written.
  bool answer() {
    std::string out;
    std::vector<std::size_t> ends;  // offset after each frame's LF
    const std::size_t first = next_;
    for (; next_ < frames_.size() && frames_[next_].dir == Direction::server; ++next_) {
      out += spliced(next_);
      out += '\n';
      ends.push_back(out.size());
    }
    if (out.empty()) return true;
    process::IoResult r = sink_.write(out);
    std::size_t written = 0;
    while (written < ends.size() && ends[written] <= r.bytes) ++written;
    report_.server_frames += written;
    if (!r.error) return true;
    const Frame& lost = frames_[first + written];
    ServeFailure& f = failure(ServeProblem::client_eof);
    f.transcript_line = lost.line;
    f.errors.push_back(fmt::format("writing server frames failed at {}:{} ({}): {}{}", script_.transcript, lost.line,
                                   facts_[first + written].signature, std::strerror(r.error),
                                   r.error == EPIPE ? " (the client stopped reading the host's stdout)" : ""));
    return false;
  }

  // A recorded server frame; a response to a client request carries the client's id.
  std::string spliced(std::size_t index) const {
    const std::string& bytes = frames_[index].wire_bytes();
    if (verbatim_ || !facts_[index].answers) return bytes;
    auto token = id_tokens_.find(*facts_[index].answers);
    if (token == id_tokens_.end()) return bytes;
    const MemberScan scan = scan_members(bytes);
    std::optional<std::string_view> recorded = scan.token(bytes, "id");
    if (!recorded || *recorded == token->second) return bytes;
    return *splice_member(bytes, "id", token->second);
  }

  Match match_whole(const Frame& expected, const Frame& received) {
    Match m;
    if (!facts_[next_].json) {
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
    if (c.outcome == FrameOutcome::divergent && !settle_redacted(c.divergences)) {
      m.problem = ServeProblem::frame_divergence;
      m.divergences = std::move(c.divergences);
      return m;
    }
    const MemberScan scan = scan_members(received.json_text());
    if (auto id = scan.token(received.json_text(), "id")) m.id_token = std::string(*id);
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
    if (!m.divergences.empty()) {
      m.problem = ServeProblem::frame_divergence;
      m.errors.push_back(fmt::format("both frames are over frameLimitBytes {}: they are compared on the top-level "
                                     "members complete within their first {} bytes",
                                     limit, limit));
      return m;
    }
    if (auto id = rs.token(rp, "id")) m.id_token = std::string(*id);
    return m;
  }

  const FixtureScript& script_;
  const std::vector<Frame>& frames_;
  std::vector<FrameFacts> facts_;
  FrameComparer comparer_;
  struct {
    bool accept = false;
    std::map<std::string, std::string> pairs;  // placeholder -> the client's value (compact JSON)
  } redacted_;
  ByteSink& sink_;
  ServeFixtureReport& report_;
  std::size_t next_ = 0;        // the next recorded line to play
  std::size_t input_line_ = 0;  // LF-terminated input lines read
  std::map<std::size_t, std::string> id_tokens_;  // recorded request index -> the client's id token
  bool verbatim_ = false;                         // --verbatim: no id splice
};

}  // namespace

ServeFixtureReport serve_fixture(const FixtureScript& script, const MaskSpec& mask, ByteSource& from_client,
                                 ByteSink& to_client, const ServeOptions& options) {
  ServeFixtureReport report;
  report.scenario = script.id();
  report.transcript = script.transcript;
  Player player(script, mask, to_client, report, options.verbatim);
  if (!player.open()) return report;
  // Played through: complete, whatever the client still sends (it is not read).
  if (!options.until_eof && player.played()) return report;
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
  return report;
}

}  // namespace msptk::playback
