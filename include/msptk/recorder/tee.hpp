// The Tee is the recording half of `msptk record`: it is fed every chunk of bytes that travels
// between client and host, in the order the chunks were read, and appends each frame a chunk
// completes to a FrameSink (the transcript) before the caller forwards that chunk. That order
// is the causality rule of the recorder: whatever a peer sends after receiving a chunk can
// never be recorded ahead of the frames in it.
//
// What it keeps (issue 4):
// - each direction is cut at LF; frames of any size are kept whole. The frame in progress is a
//   PendingFrame (pending_frame.hpp): in memory up to its memory limit, then, when the Tee has
//   a Spill, streamed to a spill file in the scenario folder as it arrives and copied from there
//   into the transcript when its LF comes (FrameSink::append_spilled), so memory stays bounded
//   whatever a peer writes (with a Redactor, such a frame is read back whole to be redacted);
// - a frame is appended with its exact bytes: a client's trailing CR stays in `raw`, a server
//   frame ending in CR is recorded as it is and flagged, bytes that are not UTF-8 get
//   `rawBase64` (TranscriptWriter) and are flagged, a frame over the frame limit is flagged;
// - empty lines (no bytes, or a lone CR) are counted, not recorded;
// - bytes after the last LF when a direction ends are the direction's unterminated tail: with
//   a Spill they are kept in the side file DIR/<dir>-unterminated.bin (the manifest holds only
//   their length, SHA-256 and first/last bytes, capture.hpp); without one, in memory;
// - the schema fingerprint the host announces in its initialize result
//   (`result.schema.fingerprint` of the response to the client's `initialize` request).
// With a Redactor (redactor.hpp), each frame goes to the sink as the Redactor rewrites it; the
// counts, flags and the handshake watch still see the bytes as they were read. With --redact
// paths, no byte that is not yet redacted reaches a file that could stay behind: the frame in
// progress spills to a file without a name (pending_frame.hpp), and an unterminated tail is
// kept redacted when it parses as a JSON object, otherwise withheld (`Unterminated::withheld`:
// only its size and SHA-256; no side file, no head or tail).
// A sink failure (disk full) stops recording but not counting: `failure()` holds the error.
// Single-threaded; the Tee holds a reference to its sink.
#pragma once

#include "msptk/recorder/redactor.hpp"
#include "msptk/transcript/error.hpp"
#include "msptk/transcript/frame.hpp"
#include "msptk/recorder/disk.hpp"
#include "msptk/recorder/pending_frame.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::recorder {

// Where recorded frames go: the transcript file, or a fake in tests.
class FrameSink {
 public:
  virtual ~FrameSink() = default;
  virtual Result<void> append(Direction dir, std::string_view bytes) = 0;
  // append(), and whether `bytes` are valid UTF-8 (the Tee flags a frame that is not). The
  // default asks is_valid_utf8; the transcript learns it while it escapes the frame.
  virtual Result<bool> append_frame(Direction dir, std::string_view bytes);
  // The frames of one read chunk have all been appended: a sink that buffers them writes them
  // now, with one write (the Tee calls it before the chunk is forwarded).
  virtual Result<void> end_of_chunk() { return {}; }
  // A frame too big to hold, in its closed spill file (pending_frame.hpp), and whether it is
  // valid UTF-8. The default reads it back whole and calls append_frame(); the recorder's
  // transcript streams it instead.
  virtual Result<bool> append_spilled(Direction dir, const PendingFrame& frame);
};

// Where a Tee spills: the scenario folder (through the recorder's Disk) and the memory limit
// per direction.
struct Spill {
  Disk* disk = nullptr;
  std::filesystem::path dir;
  std::size_t memory_limit = kDefaultMemoryLimit;
};

// A direction's unterminated tail, as the manifest describes it.
struct Unterminated {
  std::uint64_t bytes = 0;
  std::string sha256;      // hex; empty when bytes == 0
  std::string head, tail;  // the first and last kEdgeBytes
  std::string file;        // side file name in the scenario folder ("" when not kept in one)
  // Under --redact, bytes that could not be vetted: only `bytes` and `sha256` describe them.
  // (Kept redacted instead, the members above describe the redacted bytes.)
  bool withheld = false;
};

// Reads a closed spill file back whole.
Result<std::string> read_spilled(const PendingFrame& frame);

struct DirectionStats {
  std::uint64_t frames = 0;       // complete non-empty frames seen (recorded unless failure())
  std::uint64_t bytes = 0;        // every byte read in this direction (LFs, empty lines, tail)
  std::uint64_t empty_lines = 0;  // lines with no bytes or only a CR: forwarded, not recorded
  std::string unterminated;       // without a Spill: bytes after the last LF once the direction ended
  Unterminated tail;              // the same bytes described (always set once closed)
  bool closed = false;
};

// A recorded line worth a reader's attention.
struct FlaggedLine {
  std::size_t line = 0;  // 1-based line of transcript.ndjson
  Direction dir = Direction::client;
  std::string reason;    // "oversized", "serverCR" or "invalidUtf8"
  std::uint64_t bytes = 0;  // the frame's size without LF
};

class Tee {
 public:
  Tee(FrameSink& sink, std::uint64_t frame_limit_bytes, const Spill& spill = {});

  // Frames are recorded as `redactor` rewrites them (null: as they are). Set before feeding.
  void redact_with(Redactor* redactor);

  // Records the frames `chunk` completes in direction `dir`. Call before forwarding the chunk.
  void feed(Direction dir, std::string_view chunk);
  // The direction ended: what is pending becomes its unterminated tail (in its side file with
  // a Spill). Idempotent.
  void close(Direction dir);

  const DirectionStats& stats(Direction dir) const { return dir == Direction::client ? client_ : server_; }
  const std::vector<FlaggedLine>& flagged() const { return flagged_; }
  std::size_t lines_recorded() const { return lines_; }
  // The fingerprint of the host's initialize result, once seen.
  const std::optional<std::string>& fingerprint() const { return fingerprint_; }
  // The first sink failure; nothing is recorded after it.
  const std::optional<Error>& failure() const { return failure_; }

 private:
  void on_frame(Direction dir, std::string_view bytes);
  void on_pending_frame(Direction dir, PendingFrame& frame);
  void flag_frame(Direction dir, std::uint64_t size, char last, bool valid_utf8);
  void watch_handshake(Direction dir, std::string_view bytes);
  void keep_redacted_tail(Direction dir, PendingFrame& frame, DirectionStats& stats);
  PendingFrame& pending(Direction dir) { return dir == Direction::client ? client_pending_ : server_pending_; }

  FrameSink& sink_;
  std::uint64_t limit_;
  Spill spill_;
  PendingFrame client_pending_, server_pending_;
  DirectionStats client_, server_;
  std::vector<FlaggedLine> flagged_;
  std::size_t lines_ = 0;
  std::optional<std::string> initialize_id_;  // id_key of the client's initialize request
  bool handshake_done_ = false;
  std::optional<std::string> fingerprint_;
  std::optional<Error> failure_;
  Redactor* redactor_ = nullptr;
};

}  // namespace msptk::recorder
