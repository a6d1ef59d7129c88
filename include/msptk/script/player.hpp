// The Player plays a Script (script.hpp) as the client of one connection: it sends each step's
// frame, reads what the host sends, and decides when a step is done. It knows nothing of
// processes or recordings: it talks through a ClientLink (the pipe ends of `msptk record`'s
// client side in the CLI, fd_link.hpp; an in-memory host in tests).
//
// What the player does with what arrives, in arrival order:
// - a response to one of its requests completes that step's wait; it is kept (for references)
//   only when the step is named or is the handshake;
// - a request of the host is kept until an answer step takes it (the first unanswered one of
//   its method, arrived before or after the answer step began), or answered on arrival when an
//   "always" answer for its method was played; only methods an answer step from the current
//   step on names are kept, at most kHeldRequests unanswered ones (the oldest dropped, counted);
// - every request and notification of the host is the latest of its method ("${last M:P}", kept
//   only for the methods such a reference from the current step on names) and goes into the
//   wait queue when a wait step from the current step on names its method: a wait step takes
//   the first queued frame of its method that has the required values, and drops it and every
//   frame queued before it, so the next wait looks only at what came after. The queue keeps at
//   most kQueueFrames frames and kQueueBytes of their bytes (the oldest dropped, counted, and
//   said in a wait's timeout), each as the line that arrived (parsed when a wait looks at it).
// So what the player holds is bounded whatever the host floods. A line longer than the link
// holds (kMaxLineBytes, the recorder's own in-memory limit per direction) arrives as its
// envelope only (envelope_scan.hpp): it completes a response, is answered or waited for by
// method, but a reference or a where into it fails (script.unresolved / the wait's timeout
// say so).
// References are resolved just before a step's frame is sent: a response not yet there (a
// pipelined request) is waited for within the step's timeout; "last" takes what has arrived.
// A step's timeout (timeoutMs) covers everything the step does from its start: writing its
// frames (a host that stops reading its stdin cannot hold a send longer) and waiting.
// Nothing is retried and nothing improvised: the first step that cannot complete ends the play
// with an Error naming the script line (rule script.timeout, script.unresolved or
// script.handshake: kind conformance, exit 1; script.host-closed: kind peer, exit 3) and what
// arrived instead.
#pragma once

#include "msptk/script/envelope_scan.hpp"
#include "msptk/script/script.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace msptk::script {

inline constexpr std::size_t kMaxLineBytes = 1024 * 1024;    // a longer line arrives as its envelope
inline constexpr std::size_t kQueueFrames = 4096;             // wait queue: frames kept
inline constexpr std::size_t kQueueBytes = 8 * 1024 * 1024;   // wait queue: their bytes
inline constexpr std::size_t kHeldRequests = 1024;            // unanswered host requests kept

// One line from the host: the line itself, or when it was longer than the link holds, its
// envelope.
struct ServerLine {
  std::string text;                    // the line without its LF (empty when long_frame is set)
  std::optional<LongFrame> long_frame; // a line past the link's limit: what was kept of it
  std::uint64_t bytes() const { return long_frame ? long_frame->bytes : text.size(); }
};

// The client's end of a connection.
class ClientLink {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Got { line, timeout, closed };
  struct Sent {
    enum Status { sent, timeout, closed } status = sent;
    std::size_t written = 0;  // bytes of the frame (with its LF) the host took
  };
  // Receives the lines that arrive while a frame is being written, in arrival order.
  using LineSink = std::function<void(ServerLine&&)>;
  virtual ~ClientLink() = default;
  // Writes one frame and its LF before `deadline`. `timeout`: the host did not take it all in
  // time (it stopped reading); `closed`: the host can no longer be written to.
  virtual Sent send(std::string_view frame, Clock::time_point deadline, const LineSink& arrived) = 0;
  // The next complete server line that arrives before `deadline`, into `line`.
  // `closed`: the host's output ended (a last line without LF is not a frame and is dropped).
  virtual Got next(ServerLine& line, Clock::time_point deadline) = 0;
};

struct PlayOptions {
  std::int64_t seed = 7;                  // commandId seed (command_id.hpp)
  std::int64_t clock_start_ms = 1754590931000;
};

struct PlayOutcome {
  std::size_t steps_played = 0;   // steps completed
  std::optional<Error> failure;   // the step that could not complete
  bool complete() const { return !failure; }
};

PlayOutcome play(const Script& script, ClientLink& link, const PlayOptions& options);

}  // namespace msptk::script
