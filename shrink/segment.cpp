// Exchange segmentation (segment.hpp).
#include "msptk/shrink/segment.hpp"

#include "msptk/transcript/json_parse.hpp"
#include "msptk/validator/validator.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <string>

namespace msptk::shrink {

namespace {

struct Facts {
  FrameKind kind = FrameKind::invalid;
  std::string method;
  std::optional<std::string> id;  // id_key of the id (requests, responses; an invalid frame's, if any)
  bool null_id = false;           // a response with id null
  // A client frame the server must reject (not a message, or too large), and the id its
  // rejection may carry besides null.
  bool rejected = false;
  std::optional<std::string> rejection_id;
};

Facts facts_of(const Frame& frame) {
  Facts f;
  auto value = parse_json(frame.json_text());
  if (!value) return f;
  const Envelope env = classify(*value);
  f.kind = env.kind;
  f.method = env.method;
  const boost::json::value* id = env.id;
  if (!id && env.kind == FrameKind::invalid && value->is_object()) id = value->as_object().if_contains("id");
  if (id) {
    f.id = id_key(*id);
    f.null_id = id->is_null();
  }
  return f;
}

}  // namespace

Segmentation segment(const std::vector<Frame>& frames, std::int64_t frame_limit) {
  Segmentation seg;
  seg.frames = frames.size();
  std::vector<Facts> facts;
  facts.reserve(frames.size());
  for (const Frame& f : frames) {
    Facts fact = facts_of(f);
    if (f.dir == Direction::client) {
      // What validate expects a rejection of, in its order: bytes that are not UTF-8 (rawBase64:
      // a parse error, whatever the size), a frame over the limit (even a well-formed request is
      // only rejected: in flight for nothing else), a frame that is not a JSON-RPC message.
      if (f.exact_bytes) {
        fact.kind = FrameKind::invalid;
        fact.rejected = true;
        fact.rejection_id.reset();
      } else if (static_cast<std::int64_t>(f.raw.size()) > frame_limit) {
        fact.kind = FrameKind::invalid;
        fact.rejected = true;
        fact.rejection_id = too_large_frame_id(f);
      } else if (fact.kind == FrameKind::invalid) {
        fact.rejected = true;
        fact.rejection_id = fact.id;
      }
    }
    facts.push_back(std::move(fact));
  }

  // For each request, the index of its answer (the first response from the other side with its
  // id after it); requests never answered reach to themselves. A client frame that is not a
  // JSON-RPC message (not JSON, a broken envelope) is legal only with the server's rejection, the
  // next server response with id null or with its id, in order (validate's frame.json rule):
  // it reaches to that response, so no candidate keeps one without the other.
  std::vector<std::size_t> reach(frames.size());
  std::map<std::pair<Direction, std::string>, std::size_t> in_flight;
  std::deque<std::size_t> rejections;  // client frames awaiting the server's rejection
  for (std::size_t i = 0; i < frames.size(); ++i) {
    reach[i] = i;
    const Facts& f = facts[i];
    if (f.rejected) {
      rejections.push_back(i);
      continue;
    }
    if (frames[i].dir == Direction::server && f.kind == FrameKind::response && !rejections.empty() &&
        (f.null_id || (facts[rejections.front()].rejection_id && facts[rejections.front()].rejection_id == f.id))) {
      reach[rejections.front()] = i;
      rejections.pop_front();
      continue;
    }
    if (!f.id) continue;
    if (f.kind == FrameKind::request) {
      in_flight[{frames[i].dir, *f.id}] = i;
    } else if (f.kind == FrameKind::response) {
      const Direction asker = frames[i].dir == Direction::client ? Direction::server : Direction::client;
      auto it = in_flight.find({asker, *f.id});
      if (it != in_flight.end()) {
        reach[it->second] = i;
        in_flight.erase(it);
      }
    }
  }

  // The handshake: through the response to the first initialize request, then the client's
  // initialized notification if it comes before the next client request; widened so that no
  // request in it is answered after it.
  std::size_t end = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (frames[i].dir != Direction::client || facts[i].kind != FrameKind::request || facts[i].method != "initialize")
      continue;
    end = reach[i] + 1;
    for (std::size_t j = end; j < frames.size(); ++j) {
      if (frames[j].dir != Direction::client) continue;
      if (facts[j].kind == FrameKind::notification && facts[j].method == "initialized") end = j + 1;
      break;
    }
    break;
  }
  // The client's first `initialized` is in it wherever it comes (after an unanswered initialize,
  // after other requests): validate refuses any server notification or request before it, so a
  // candidate without it would not be a valid scenario.
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (frames[i].dir == Direction::client && facts[i].kind == FrameKind::notification &&
        facts[i].method == "initialized") {
      end = std::max(end, i + 1);
      break;
    }
  }
  for (std::size_t i = 0; i < end; ++i) end = std::max(end, reach[i] + 1);
  seg.handshake_end = std::min(end, frames.size());

  // Units: a new one starts at a request (or a client frame awaiting its rejection) when nothing
  // is in flight.
  std::size_t open_until = 0;  // frames before this index are inside an open exchange
  for (std::size_t i = seg.handshake_end; i < frames.size(); ++i) {
    const bool opens = facts[i].kind == FrameKind::request || facts[i].rejected;
    const bool starts = opens && i >= open_until;
    if (seg.units.empty() || (starts && seg.units.back().begin != i)) seg.units.push_back(Unit{i, i + 1});
    seg.units.back().end = i + 1;
    open_until = std::max(open_until, reach[i] + 1);
  }
  return seg;
}

std::vector<std::size_t> candidate_indexes(const Segmentation& seg, const std::vector<std::size_t>& units) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < seg.handshake_end; ++i) out.push_back(i);
  for (std::size_t u : units)
    for (std::size_t i = seg.units[u].begin; i < seg.units[u].end; ++i) out.push_back(i);
  return out;
}

std::vector<Frame> candidate_frames(const std::vector<Frame>& frames, const Segmentation& seg,
                                    const std::vector<std::size_t>& units) {
  std::vector<Frame> out;
  for (std::size_t i : candidate_indexes(seg, units)) out.push_back(frames[i]);
  return out;
}

}  // namespace msptk::shrink
