// A Frame is one line of a transcript: the direction it travelled, the exact bytes of one
// JSON-RPC message without its trailing LF, and where it was read from. Parsing is on demand:
// the differ compares server bytes before it ever parses them.
//
// Envelope classifies a parsed frame as request / notification / response / invalid, the
// vocabulary of JSON-RPC 2.0 that MSP uses (seed 000).
#pragma once

#include "msptk/transcript/error.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace msptk {

enum class Direction { client, server };

std::string_view to_string(Direction dir);
std::optional<Direction> parse_direction(std::string_view text);

struct Frame {
  Direction dir = Direction::client;
  // The frame's bytes as the transcript's `raw` member holds them (UTF-8).
  std::string raw;
  // Set when the line carried `rawBase64`: the exact wire bytes, which were not valid UTF-8
  // and so could only be kept lossily in `raw`.
  std::optional<std::string> exact_bytes;
  // 1-based line number in the file the frame was read from (0 for frames built in memory).
  std::size_t line = 0;

  // The bytes that travelled on the wire (exact_bytes when present, else raw).
  const std::string& wire_bytes() const { return exact_bytes ? *exact_bytes : raw; }

  // The JSON text of the message: its wire bytes without the trailing CR a client may send. A
  // rawBase64 frame is its bytes (not valid UTF-8, so never JSON), never its lossy `raw`.
  std::string_view json_text() const;

  // Parses json_text(); the error names `file` and this frame's line.
  Result<boost::json::value> parse(const std::string& file) const;
};

enum class FrameKind { request, notification, response, invalid };

std::string_view to_string(FrameKind kind);

// What JSON-RPC says a parsed message is. For `invalid`, `problem` says why.
struct Envelope {
  FrameKind kind = FrameKind::invalid;
  const boost::json::value* id = nullptr;  // points into the classified value
  std::string method;                      // requests and notifications
  bool is_error = false;                   // responses: error rather than result
  std::string problem;                     // invalid: the first rule broken
};

Envelope classify(const boost::json::value& message);

// Whether the JSON text of a frame may have a member named "id" (at any depth): the name spelled
// as it is, or a `\u` escape (which may spell any letter). False proves the frame is neither a
// request nor a response, without parsing it. body_scan.hpp's canonical_line_may_name_id asks
// the same of the frame's transcript line, without decoding it.
bool may_name_id(std::string_view json_text);

// A canonical, compact text of an id for use as a map key ("1", "\"b9\"", "null"); a number by
// its value (1e3 and 1000 give "1000").
std::string id_key(const boost::json::value& id);

}  // namespace msptk
