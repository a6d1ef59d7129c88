// A wire log is the raw side of a recording (`msptk record --wire-log FILE`): every chunk of
// bytes as the recorder read it, one JSON line each, in read order:
//
//   {"seq":1,"dir":"client","tMicros":412,"bytes":"<base64>"}
//
// `seq` counts chunks from 1, `dir` says which peer wrote them ("client": read from the client,
// "server": read from the host's stdout), `tMicros` is the time of the read in microseconds since
// the recording started, `bytes` the chunk in standard base64. Where the transcript keeps frames,
// the wire log keeps how they travelled, so framing faults (a code point split across writes, a
// frame cut in halves, a host's late flush) can be analysed after the fact.
//
// `analyze` replays the chunks through the transcript's LineFramer per direction, exactly as the
// recorder's Tee did: it rebuilds the frames (empty lines are not frames) and, per chunk, how
// many frames it completed, whether it ended inside a frame or inside a UTF-8 code point, and the
// gap since the chunk before. `compare_with_transcript` checks the rebuilt frames against a
// transcript, frame for frame. Rendering: render.hpp.
#pragma once

#include "msptk/transcript/error.hpp"
#include "msptk/transcript/frame.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::wirelog {

struct WireChunk {
  std::uint64_t seq = 0;
  Direction dir = Direction::client;
  std::int64_t t_micros = 0;
  std::string bytes;
  std::size_t line = 0;  // 1-based line in the wire log (0 when built in memory)
};

// Appends chunks to FILE. The raw bytes hold whatever the peers sent, secrets included, so FILE
// is always a new file of its own: created exclusively (O_CREAT|O_EXCL, which also refuses any
// symbolic link, dangling or not), 0600. An existing FILE is a usage error unless `replace`
// (record --force): the log is then written to a new file beside FILE and renamed over it by
// commit(), so the old FILE (or the target of a FILE that is a symbolic link) is never written
// to. Until commit() the writer owns what it created: destroyed uncommitted (the host could not
// be spawned, the recording failed to start), it removes it, and FILE is as it was.
class WireLogWriter {
 public:
  // `micros` is the clock (microseconds since the recording started); default: a steady clock
  // started by create().
  static Result<WireLogWriter> create(const std::filesystem::path& path, std::function<std::int64_t()> micros = {},
                                      bool replace = false);
  WireLogWriter(WireLogWriter&& other) noexcept;
  WireLogWriter& operator=(WireLogWriter&&) = delete;
  ~WireLogWriter();

  // The recording started: the log is FILE from now on (with `replace`, renamed over it).
  Result<void> commit();

  // Writes one line. After a failure nothing more is written; failure() keeps the first.
  void append(Direction dir, std::string_view chunk);
  const std::optional<Error>& failure() const { return failure_; }
  // Chunks written so far.
  std::uint64_t chunks() const { return seq_; }

 private:
  WireLogWriter() = default;
  std::string path_;     // FILE
  std::string created_;  // the file create() made and owns until commit(); empty once committed
  int fd_ = -1;
  std::uint64_t seq_ = 0;
  std::function<std::int64_t()> micros_;
  std::optional<Error> failure_;
};

// The line of one chunk.
std::string wire_log_line(std::uint64_t seq, Direction dir, std::int64_t t_micros, std::string_view bytes);

// Reads a wire log a chunk at a time (one line held at once: memory does not grow with the log).
// next() gives each chunk, or the first error (then nothing more), or nullopt at the end.
class WireLogReader {
 public:
  static Result<WireLogReader> open(const std::filesystem::path& path);
  std::optional<Result<WireChunk>> next();
  const std::string& file() const { return file_; }

 private:
  WireLogReader() = default;
  std::string file_;
  std::unique_ptr<std::ifstream> in_;
  std::size_t line_ = 0;
  std::uint64_t last_seq_ = 0;
  std::int64_t last_t_micros_ = 0;  // of chunk last_seq_ (wirelog.time: times never go backwards)
  std::size_t last_line_ = 0;
  bool done_ = false;
};

// Reads a wire log. Errors (`malformed`, with FILE:LINE): a line that is not a JSON object with
// seq (positive integer, increasing by one), dir, tMicros (integer) and bytes (base64) is
// `wirelog.line`; a tMicros that is negative or smaller than the line before's (the times of
// reads in order never go backwards) is `wirelog.time`.
Result<std::vector<WireChunk>> read_wire_log(const std::filesystem::path& path);

struct ChunkRow {
  std::uint64_t seq = 0;
  Direction dir = Direction::client;
  std::int64_t t_micros = 0;
  std::int64_t gap_micros = 0;      // since the previous chunk (either direction); 0 for the first
  std::size_t bytes = 0;
  std::size_t frames_completed = 0; // frames (non-empty lines) whose LF is in this chunk
  std::size_t empty_lines = 0;      // empty lines (or a lone CR) ended in this chunk
  std::size_t open_bytes = 0;       // bytes of an unfinished frame after this chunk (0: ends at a LF)
  bool splits_code_point = false;   // the chunk ends inside a UTF-8 multi-byte sequence
};

struct RebuiltFrame {
  Direction dir = Direction::client;
  std::string bytes;                // without LF (a trailing CR kept)
  std::uint64_t first_seq = 0, last_seq = 0;  // the chunks it came in

  bool cut() const { return first_seq != last_seq; }
};

struct DirectionTotals {
  std::size_t chunks = 0, bytes = 0, frames = 0, cut_frames = 0, empty_lines = 0;
  std::size_t unterminated = 0;  // bytes after the last LF
};

struct WireAnalysis {
  std::vector<ChunkRow> rows;
  std::vector<RebuiltFrame> frames;  // in the order they completed (the transcript's order)
  DirectionTotals client, server;
  std::int64_t largest_gap_micros = 0;
  std::uint64_t largest_gap_before_seq = 0;  // the chunk that ended the largest gap

  const DirectionTotals& totals(Direction dir) const { return dir == Direction::client ? client : server; }
};

WireAnalysis analyze(const std::vector<WireChunk>& chunks);

struct FrameMismatch {
  std::size_t line = 0;  // transcript line (0: a rebuilt frame beyond the transcript's end)
  std::size_t frame = 0; // 1-based rebuilt frame
  std::string message;
};

struct RebuildCheck {
  std::size_t compared = 0;
  std::vector<FrameMismatch> mismatches;  // at most `limit`, then `more` counts the rest
  std::size_t more = 0;
  bool same() const { return mismatches.empty(); }
};

// Writes the rebuilt frames as a transcript to `out` (wire-log --rebuild): 0600 whatever `out`
// was (the frames are recorded bytes), through a new file beside it renamed over it, so a
// failure leaves `out` as it was. An `out` that is one of `inputs` (the same file by device and
// inode: any spelling, a symbolic or hard link) is refused (usage) before anything is written.
Result<void> write_rebuilt(const WireAnalysis& analysis, const std::filesystem::path& out,
                           const std::vector<std::filesystem::path>& inputs);

// Compares the rebuilt frames with a transcript's frames (direction and wire bytes).
RebuildCheck compare_with_transcript(const WireAnalysis& analysis, const std::vector<Frame>& transcript,
                                     std::size_t limit = 20);

}  // namespace msptk::wirelog
