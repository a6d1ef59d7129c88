#include "msptk/transcript/correlator.hpp"

#include <algorithm>

namespace msptk {

Correlator::Outcome Correlator::observe(Direction dir, const Envelope& envelope, std::size_t line) {
  Outcome outcome;
  switch (envelope.kind) {
    case FrameKind::invalid:
      outcome.status = Status::not_a_message;
      return outcome;
    case FrameKind::notification:
      return outcome;
    case FrameKind::request: {
      Key key{dir, id_key(*envelope.id)};
      auto [it, inserted] = in_flight_.try_emplace(key, Request{dir, envelope.method, key.id, line});
      if (!inserted) {
        outcome.status = Status::duplicate_id;
        outcome.previous = &it->second;
      }
      return outcome;
    }
    case FrameKind::response: {
      const Direction requester = dir == Direction::client ? Direction::server : Direction::client;
      auto it = in_flight_.find(Key{requester, id_key(*envelope.id)});
      if (it == in_flight_.end()) {
        outcome.status = Status::unmatched;
        return outcome;
      }
      last_answered_ = std::move(it->second);
      in_flight_.erase(it);
      outcome.answered = &last_answered_;
      return outcome;
    }
  }
  return outcome;
}

std::vector<Correlator::Request> Correlator::in_flight() const {
  std::vector<Request> out;
  for (const auto& [key, request] : in_flight_) out.push_back(request);
  std::sort(out.begin(), out.end(), [](const Request& a, const Request& b) { return a.line < b.line; });
  return out;
}

bool Correlator::answers_like(const Correlator& other) const {
  return std::equal(in_flight_.begin(), in_flight_.end(), other.in_flight_.begin(), other.in_flight_.end(),
                    [](const auto& x, const auto& y) { return x.first == y.first && x.second.method == y.second.method; });
}

}  // namespace msptk
