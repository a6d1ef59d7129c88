#include "script_follow.hpp"

#include "msptk/normalizer/canonical.hpp"
#include "msptk/transcript/json_parse.hpp"

#include <fmt/format.h>

namespace msptk::playback {

namespace json = boost::json;

std::string_view to_string(ScriptOutcome outcome) {
  switch (outcome) {
    case ScriptOutcome::divergent: return "divergent";
    case ScriptOutcome::missing: return "missing";
    case ScriptOutcome::extra: return "extra";
  }
  return "divergent";
}

FrameFacts FrameStudy::observe(const Frame& frame, std::size_t index) {
  FrameFacts facts;
  facts.signature.dir = frame.dir;
  auto message = parse_json(frame.json_text());
  if (!message) {
    facts.text = fmt::format("{} frame that is not JSON", to_string(frame.dir));
    return facts;
  }
  const Envelope envelope = classify(*message);
  facts.json = true;
  facts.request = envelope.kind == FrameKind::request;
  if (envelope.id) facts.id = canonical_json(*envelope.id);
  facts.signature = signatures_.observe(frame, envelope);
  facts.text = facts.signature.text();
  // Lines are indexes + 1 here, whatever the frames' own line numbers are.
  Correlator::Outcome outcome = correlator_.observe(frame.dir, envelope, index + 1);
  if (outcome.answered && outcome.answered->dir == Direction::client && frame.dir == Direction::server)
    facts.answers = outcome.answered->line - 1;
  return facts;
}

Signature received_signature(const std::optional<json::value>& message, std::string_view answered_method) {
  Signature s;
  s.dir = Direction::client;
  if (!message) return s;  // kind invalid: a frame that is not JSON
  const Envelope envelope = classify(*message);
  s.kind = envelope.kind;
  s.method = envelope.kind == FrameKind::response ? std::string(answered_method) : std::string(envelope.method);
  return s;
}

Result<std::optional<std::size_t>> look_ahead(const FrameFeed& feed, const FrameStudy& study,
                                              const Signature& wanted) {
  auto ahead = feed.ahead();
  if (!ahead) return ahead.error();
  FrameStudy scout = study;
  std::size_t client_lines = 0;
  for (; const Frame* frame = ahead->current(); ahead->advance()) {
    const FrameFacts facts = scout.observe(*frame, ahead->index());
    if (frame->dir != Direction::client) continue;
    if (facts.signature == wanted) return std::optional<std::size_t>(ahead->index());
    if (++client_lines >= kLookaheadClientLines) break;
  }
  // A line that cannot be read ends the look ahead; the player meets it when it gets there.
  return std::optional<std::size_t>();
}

void ScriptLog::add(ScriptDifference d, const Frame* expected, const std::string* received,
                    std::optional<std::size_t> received_bytes, std::string error) {
  switch (d.outcome) {
    case ScriptOutcome::divergent: ++report_.divergent; break;
    case ScriptOutcome::missing: ++report_.missing; break;
    case ScriptOutcome::extra: ++report_.extra; break;
  }
  if (!first_) {
    ServeFailure& f = first_.emplace();
    f.problem = ServeProblem::frame_divergence;
    f.transcript_line = expected ? std::optional<std::size_t>(expected->line) : d.transcript_line;
    if (expected) f.expected_frame = expected->wire_bytes();
    if (received) f.received_frame = *received;
    f.received_bytes = received_bytes;
    f.divergences = d.divergences;
    if (d.outcome != ScriptOutcome::divergent)
      f.divergences.push_back(PathDivergence{"", std::nullopt, std::nullopt, fmt::format("{} client frame", to_string(d.outcome))});
  }
  if (report_.differences.size() >= kReportDivergences) return;
  first_->errors.push_back(std::move(error));
  if (d.divergences.size() > kReportDivergences) {
    d.divergences_omitted = d.divergences.size() - kReportDivergences;
    d.divergences.resize(kReportDivergences);
  }
  if (d.received_frame && d.received_frame->size() > kReportQuoteBytes + 4) d.received_frame->resize(kReportQuoteBytes + 4);
  report_.differences.push_back(std::move(d));
}

}  // namespace msptk::playback
