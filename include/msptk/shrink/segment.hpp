// Segmentation cuts a scenario's frames into what `msptk shrink` may drop while keeping the
// scenario valid: the handshake (always kept: everything up to the response to the first
// `initialize` request and the client's first `initialized` notification, widened to the answers
// of what it holds — a client frame that is not a JSON-RPC message is answered by the server's
// rejection) and
// units. A unit is an exchange: a request with its response and every frame between them —
// notifications, and requests of either side nested in it with their answers (requests whose
// answers overlap are one unit) — followed by the notifications up to the next request that
// starts with nothing in flight. Units are contiguous, disjoint, in wire order, and cover every
// frame after the handshake, so any subset of units, in order, after the handshake keeps every
// id paired (no response without its request, no request losing its answer). A client frame
// the server must reject — not a JSON-RPC message, or over `frame_limit` bytes (the manifest's
// serverConfig.frameLimitBytes) — is paired with its rejection as validate pairs them.
#pragma once

#include "msptk/transcript/frame.hpp"
#include "msptk/transcript/manifest.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace msptk::shrink {

struct Unit {
  std::size_t begin = 0, end = 0;  // frames [begin, end)

  std::size_t size() const { return end - begin; }
  bool operator==(const Unit&) const = default;
};

struct Segmentation {
  std::size_t handshake_end = 0;  // frames [0, handshake_end) are the handshake
  std::vector<Unit> units;
  std::size_t frames = 0;  // all frames
};

Segmentation segment(const std::vector<Frame>& frames, std::int64_t frame_limit = kDefaultFrameLimitBytes);

// The frames of the handshake and of the units listed (indexes into seg.units, increasing), in
// wire order.
std::vector<Frame> candidate_frames(const std::vector<Frame>& frames, const Segmentation& seg,
                                    const std::vector<std::size_t>& units);

// The original indexes of those frames (0-based), in order.
std::vector<std::size_t> candidate_indexes(const Segmentation& seg, const std::vector<std::size_t>& units);

}  // namespace msptk::shrink
