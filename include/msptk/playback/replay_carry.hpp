// Carrying learned values is how replay keeps talking to a host that mints other values than
// the recording did (MATCHING.md §7). While replay compares live server frames, the comparer's
// bijections pair each recorded value at a declared path with the live one; before a recorded
// client line is sent, the places of it that echo such a value get the live value instead.
//
// The rule, place by place in the client line (locations as the mask names them):
// 1. The `id` of a client response (its answer to a server request) carries the live id the
//    server request was paired with (space "server request ids", learned when `id` is
//    declared). Ids are carried only there: small integers collide with everything else.
// 2. Values the client mints are never touched: the `id` of its requests, params.commandId,
//    params.clientInfo (replay sends the recorded client's own values).
// 3. A place selected by a declared path P carries the live value paired with its recorded
//    value in server frames at the same path P (any JSON type: `params.turnId` echoes
//    `params.turnId`).
// 4. Any other string value equal to a recorded value learned at a declared server path
//    carries its live partner: `result.session.sessionId` learned, `params.sessionId` of later
//    client frames sends the live one. Whole strings only, never substrings; when several paths
//    learned the same recorded string, the first declared path wins.
// Values paired with themselves change nothing. The new value is spliced into the recorded
// bytes as its canonical JSON token: the rest of the line (member order, spacing, a trailing
// CR) is sent as recorded, and a line in which nothing changed is sent byte for byte. A line
// that is not JSON, or not valid UTF-8, is sent as recorded.
#pragma once

#include "msptk/normalizer/unifier.hpp"
#include "msptk/playback/replay.hpp"
#include "msptk/transcript/frame.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace msptk {

// The byte range of one JSON value inside a message text, and where it is in the message.
struct ValueSpan {
  std::string location;    // params.items[0].id; "" for the root
  std::size_t depth = 0;   // steps (members and indices) from the root
  std::size_t begin = 0, end = 0;  // [begin, end) in the text
  bool is_string = false;
  bool is_container = false;  // object or array
};

// Every value of a JSON text in document order (a container before its children), down to 128
// levels: a deeper container is one span whose children are not listed (no recursion, no
// quadratic locations for a 10,000-deep frame; no mask rule reaches that deep). The text must
// be valid JSON (parse it first); on anything else the result is empty.
std::vector<ValueSpan> value_spans(std::string_view json_text);

// The bytes to send for a recorded client line (without LF), given what `learned` (the
// comparer's unifier, in unify mode) has paired so far. Appends what was carried to `carried`.
std::string carry_learned_values(const Frame& client_line, const Unifier& learned,
                                 std::vector<CarriedValue>& carried);

}  // namespace msptk
