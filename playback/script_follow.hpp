// Internal to playback: how serve-fixture follows its script, and how --keep-going follows it
// past a client frame that does not match (MATCHING.md §8).
//
// A FrameStudy learns what each recorded frame is (JSON or not, request, signature, which client
// request a server response answers) from the frames before it, in wire order. Under
// --keep-going a client frame whose signature (kind and method; for a response, the method of
// the server request it answers) is not the next recorded client line's is looked for further
// on with look_ahead(): a second FrameFeed from the frame after the cursor and a copy of the
// study, at most kLookaheadClientLines recorded client lines ahead. The window is bounded rather
// than the methods indexed in a first pass so that the canned host keeps its promise that its
// memory does not grow with the transcript: a look ahead holds one recorded frame (as the
// player does), costs the reading of the lines it passes, and is paid only for a frame that is
// not the expected one. A frame not found within the window is extra (the player's alignment is
// greedy and one frame at a time: it cannot know what the client sends next).
//
// A ScriptLog keeps what differed: every divergent, missing and extra frame counted, the first
// kReportDivergences listed (each with at most kReportDivergences places and a quote of at most
// kReportQuoteBytes of the client's frame), so a report stays bounded however much differs.
#pragma once

#include "frame_feed.hpp"

#include "msptk/differ/signature.hpp"
#include "msptk/playback/serve_fixture.hpp"
#include "msptk/transcript/correlator.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace msptk::playback {

// What the recorded transcript says about one of its frames, learned as the frame comes.
struct FrameFacts {
  bool json = false;                   // the frame parses
  bool request = false;                // a request (its id is the sender's to mint)
  Signature signature;                 // client request session/start; a frame that is not JSON: kind invalid
  std::string text;                    // "client request session/start"
  std::optional<std::size_t> answers;  // server responses: index of the client request answered
  std::optional<std::string> id;       // the frame's id (canonical JSON), when it has one
};

// Studies the frames of a transcript in wire order, one at a time: what each frame is depends
// only on the frames before it (the requests in flight), never on the frames after it. A copy
// studies on from where the original is.
class FrameStudy {
 public:
  FrameFacts observe(const Frame& frame, std::size_t index);

 private:
  Correlator correlator_;
  SignatureTracker signatures_;
};

// The signature of a parsed client frame the player received, its method for a response being
// the one `answered_method` gives for its id (canonical JSON), "" when none.
Signature received_signature(const std::optional<boost::json::value>& message,
                             std::string_view answered_method);

// The index of the first recorded client line after `feed`'s current frame whose signature is
// `wanted`, within kLookaheadClientLines client lines; nullopt when there is none. `study` is
// the study as it stands after the current frame (it is copied). An error when the transcript
// cannot be read again.
Result<std::optional<std::size_t>> look_ahead(const FrameFeed& feed, const FrameStudy& study,
                                              const Signature& wanted);

class ScriptLog {
 public:
  // One difference; the first one is also kept as the report's ServeFailure (its upstream
  // members): `expected` the recorded client line the player was at, `received` the client's
  // frame (nullptr at the end of the input) with its size.
  void add(ScriptDifference difference, const Frame* expected, const std::string* received,
           std::optional<std::size_t> received_bytes, std::string error);
  void skipped_server_frame() { ++report_.skipped_server_frames; }
  bool any() const { return report_.divergent + report_.missing + report_.extra > 0; }

  // The report's keep-going members; the failure built from the first difference (when any).
  KeepGoingReport& report() { return report_; }
  std::optional<ServeFailure>& first() { return first_; }

 private:
  KeepGoingReport report_;
  std::optional<ServeFailure> first_;
};

}  // namespace msptk::playback
