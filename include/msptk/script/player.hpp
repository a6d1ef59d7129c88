// The Player plays a Script (script.hpp) as the client of one connection: it sends each step's
// frame, reads what the host sends, and decides when a step is done. It knows nothing of
// processes or recordings: it talks through a ClientLink (the pipe ends of `msptk record`'s
// client side in the CLI, fd_link.hpp; an in-memory host in tests).
//
// What the player does with what arrives, in arrival order:
// - a response to one of its requests is kept for that step (waiting for it, references);
// - a request of the host is queued until an answer step takes it (the first unanswered one of
//   its method, arrived before or after the answer step began), or answered on arrival when an
//   "always" answer for its method was played;
// - every request and notification of the host is the latest of its method ("${last M:P}") and
//   goes into the wait queue: a wait step takes the first queued frame of its method that has
//   the required values, and drops it and every frame queued before it, so the next wait looks
//   only at what came after.
// References are resolved just before a step's frame is sent: a response not yet there (a
// pipelined request) is waited for within the step's timeout; "last" takes what has arrived.
// Nothing is retried and nothing improvised: the first step that cannot complete ends the play
// with an Error naming the script line (rule script.timeout, script.unresolved or
// script.handshake: kind conformance, exit 1; script.host-closed: kind peer, exit 3) and what
// arrived instead.
#pragma once

#include "msptk/script/script.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace msptk::script {

// The client's end of a connection.
class ClientLink {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Got { line, timeout, closed };
  virtual ~ClientLink() = default;
  // Writes one frame and its LF. False when the host can no longer be written to.
  virtual bool send(std::string_view frame) = 0;
  // The next complete server line (without its LF) that arrives before `deadline`, into `line`.
  // `closed`: the host's output ended (a last line without LF is not a frame and is dropped).
  virtual Got next(std::string& line, Clock::time_point deadline) = 0;
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
