// A frame's Signature is what it is on the wire, independent of its values: direction, JSON-RPC
// kind and method — for a response, the method of the request it answers (MATCHING.md §1).
// Signatures drive the alignment of two transcripts. A SignatureTracker follows one transcript
// in wire order (through a Correlator) so responses can be named after their requests.
//
// content_key() is a finer alignment key: a hash of the frame's parsed content in which member
// order is free, numbers count by value, and every masked place counts only by its presence.
// Two frames with equal signature and content key are "the same frame" for alignment and for
// spotting moved frames; it never decides equality by itself (the FrameComparer does).
#pragma once

#include "msptk/normalizer/mask.hpp"
#include "msptk/transcript/correlator.hpp"
#include "msptk/transcript/frame.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <string>

namespace msptk {

struct Signature {
  Direction dir = Direction::client;
  FrameKind kind = FrameKind::invalid;
  std::string method;  // requests, notifications; responses: the answered request's method ("" if none)

  // "client request initialize", "server notification turn/started",
  // "server response to initialize", "client response to no request", "server invalid frame".
  std::string text() const;
  bool operator==(const Signature&) const = default;
};

class SignatureTracker {
 public:
  // The signature of the next frame of the transcript (frames in wire order), given its envelope.
  Signature observe(const Frame& frame, const Envelope& envelope);
  // Whether the same frames fed from here on get the same signatures from both trackers.
  bool names_like(const SignatureTracker& other) const { return correlator_.answers_like(other.correlator_); }

 private:
  Correlator correlator_;
};

// The content key of a parsed frame with this role under this mask (see above).
std::uint64_t content_key(const Masker& masker, const FrameRole& role, const boost::json::value& message);

// A 64-bit hash of bytes (16 bytes a step, a 128-bit multiply folding each), for the keys the
// differ holds during one run; never written anywhere, so it may change between versions.
std::uint64_t hash_bytes(std::string_view bytes);

}  // namespace msptk
