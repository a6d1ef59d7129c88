// forward_session is the transport half of `msptk record`: a poll(2) loop that moves bytes
// client stdin -> host stdin, host stdout -> client stdout and host stderr -> msptk's stderr,
// byte-transparently and as soon as they arrive (never held for a whole line), while the Tee
// records the two protocol directions. Each chunk read is fed to the Tee *before* it is queued
// for forwarding (the causality rule, see tee.hpp).
//
// Flow control: a source is read only when what was read from it before has been written on,
// so memory stays bounded by one read per direction, a peer that stops reading slows its
// counterpart down instead of growing a buffer, and a host that stops reading its stdin can
// never deadlock the recorder (writes to the host are non-blocking; msptk's own stdout/stderr,
// which may be shared, keep their flags: they are written with RWF_NOWAIT, or at once when a
// regular file, or where the kernel lacks RWF_NOWAIT in PIPE_BUF pieces after poll says
// POLLOUT). A chunk is written from the read buffer; only what the peer does not take at once
// is copied. A read that filled the buffer is followed by another without a poll between.
//
// Lifecycle (issue 4):
// - client EOF: the host's stdin is closed once everything read was written to it; recording
//   goes on until the host closed its stdout and exited, within the close timeout (then the
//   StopLadder sends SIGTERM to the host's group, and SIGKILL after another close timeout);
// - the host exits first: what is left in its stdout/stderr pipes is drained and forwarded,
//   then the loop ends (a grandchild keeping the pipes open does not keep it alive);
// - SIGINT/SIGTERM/SIGHUP arriving on the SignalPipe are forwarded to the host's process
//   group, and the loop goes on until the host ended, escalating like a client EOF
//   (stop_ladder.hpp); SIGCHLD just wakes the loop;
// - the session ends only once the host's process group is empty: a child the host left
//   running gets SIGTERM, then SIGKILL after the close timeout;
// - a client that gives up (Wiring::client_abandon) ends the client's side at once, even while
//   the host is not reading what was forwarded to it, and the ladder runs as after a client EOF;
// - a client that went away (EPIPE on stdout) does not stop the recording: the host's frames
//   are still read and recorded, no longer forwarded.
#pragma once

#include "msptk/process/host_process.hpp"
#include "msptk/process/signals.hpp"
#include "msptk/process/stop_ladder.hpp"
#include "msptk/recorder/tee.hpp"

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace msptk::recorder {

// The client's side of the session: msptk's own standard streams, or pipes in tests.
struct Wiring {
  int client_in = 0;
  int client_out = 1;
  int err_out = 2;
  // Receives a copy of every chunk of the host's stderr (DIR/host-stderr.log); may be empty.
  std::function<void(std::string_view)> stderr_copy;
  // Sees every chunk read from the client or the host's stdout, in read order, before the Tee
  // (record --wire-log); may be empty.
  std::function<void(Direction, std::string_view)> on_chunk;
  // Readable (or hung up) once the client gives up on the session (record --script: a frame the
  // host stopped reading timed out): the client is taken as ended at once, whatever it still had
  // on its way to the host (those bytes were recorded as they were read; a frame left unfinished
  // is the client's unterminated tail), the host's stdin is closed and the stop ladder starts.
  // -1: none.
  int client_abandon = -1;
};

struct SessionEnd {
  process::ExitStatus exit;
  std::vector<int> signals_forwarded;  // in arrival order
  std::uint64_t stderr_bytes = 0;
  bool client_gone = false;       // writing to the client failed (EPIPE): later bytes dropped
  bool host_stdin_broken = false; // the host closed its stdin while the client was still writing
  bool host_did_not_exit = false; // msptk had to send SIGTERM/SIGKILL to end the host
  bool group_outlived_host = false;  // processes of the host's group were left when it exited
  std::vector<int> stop_signals;  // the signals msptk sent on its own (StopLadder), in order
};

// Runs the session to its end. `signals` may be null (no signal handling). Fails only when
// poll(2) itself fails.
Result<SessionEnd> forward_session(process::HostProcess& host, Tee& tee, const Wiring& wiring,
                                   process::SignalPipe* signals,
                                   int close_timeout_ms = process::kDefaultCloseTimeoutMs);

}  // namespace msptk::recorder
