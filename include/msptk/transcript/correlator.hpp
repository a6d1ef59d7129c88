// A Correlator follows the requests in flight on one connection and pairs every response with
// the request it answers. JSON-RPC ids live in two spaces: the client's requests are answered by
// server responses, and the server's requests (approval/request, userInput/request) by client
// responses. Feeding frames in wire order tells, for each one, which request a response
// answers (its method and line), whether a request reused an id still in flight, and at the end
// which requests were never answered. Used by the validator's session rules, by the differ's
// frame signatures and by the live verbs.
#pragma once

#include "msptk/transcript/frame.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace msptk {

class Correlator {
 public:
  struct Request {
    Direction dir = Direction::client;  // who sent the request
    std::string method;
    std::string id;  // id_key() of its id
    std::size_t line = 0;
  };

  enum class Status {
    ok,               // a request, a notification, or a response to a request in flight
    duplicate_id,     // a request whose id is already in flight in the same direction
    unmatched,        // a response no request in flight of the other direction has that id
    not_a_message,    // an invalid envelope: nothing to correlate
  };

  struct Outcome {
    Status status = Status::ok;
    const Request* answered = nullptr;  // for a matched response: the request (valid until next observe)
    const Request* previous = nullptr;  // for duplicate_id: the request still in flight
  };

  Outcome observe(Direction dir, const Envelope& envelope, std::size_t line);

  // Requests never answered, in the order they were sent.
  std::vector<Request> in_flight() const;

  // Whether the same frames fed from here on get the same outcomes from both (their requests in
  // flight have the same ids and methods; the lines they were sent on may differ).
  bool answers_like(const Correlator& other) const;

 private:
  struct Key {
    Direction dir;
    std::string id;
    auto operator<=>(const Key&) const = default;
  };
  std::map<Key, Request> in_flight_;
  Request last_answered_;
};

}  // namespace msptk
