// TranscriptReader streams the lines of a transcript file (transcript.ndjson or a
// *-legs.ndjson file) one at a time: it never holds more than one line in memory. Each line
// yields either a Frame or an Error naming the file, the line and the rule it breaks; reading
// goes on after a bad line so that a validator can report them all.
//
// Accepted line form: a JSON object with members `dir` ("client"|"server") and `raw` (string),
// in any order and with any outer whitespace (the corpus has `{"dir": "client", "raw": ...}`),
// plus the optional `rawBase64` that the recorder writes for bytes that are not UTF-8.
//
// Fast path: a line in exactly the form TranscriptWriter writes (`{"dir":"…","raw":"…"}`, only
// the writer's escapes) is decoded by a single scan, without a JSON parser
// (parse_canonical_line); any other line goes through the general parser. Both give the same
// Frame for a canonical line (tests/unit/reader_fast_path_test.cpp holds them to it over every
// corpus line), and the general parser decides every line the fast path does not take, so no
// rule is ever skipped.
//
// Lines are read with a size cap (LineSource: MSPTK_MAX_LINE_BYTES, default 1 GiB): a line
// longer than the cap, or longer than the memory msptk may allocate, is never held: the reader
// returns an `unreadable` error naming the file and the line (exit 3) and goes on after it.
#pragma once

#include "msptk/transcript/frame.hpp"
#include "msptk/transcript/line_source.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace msptk {

// Facts about a line beyond the frame it holds, for the validator's file rules.
struct LineFacts {
  bool canonical = false;        // the line is byte-for-byte what TranscriptWriter writes
  bool lf_terminated = true;     // false only for a last line without LF
  bool crlf = false;             // the line ended in CR LF
  bool blank = false;            // the line was empty or only whitespace
};

class TranscriptReader {
 public:
  static Result<TranscriptReader> open(const std::filesystem::path& path,
                                       std::size_t max_line_bytes = LineSource::default_max_line_bytes());

  // The next line: nullopt at end of file, else a Frame or the line's error.
  // An I/O failure is returned once as an `unreadable` error, then the reader ends.
  std::optional<Result<Frame>> next();

  // Like next(), but the raw of a line in the canonical form is checked and not decoded: the
  // Frame's raw is empty until decode() (while this is still the line read last), for a caller
  // that may need only the line's bytes (a differ whose other side has the same line).
  std::optional<Result<Frame>> next_undecoded();
  // Decodes into `frame` the raw next_undecoded() left out (nothing to do for any other line).
  void decode(Frame& frame);

  // Reads the next line and, when it is byte for byte `text` (the line another reader has just
  // returned a Frame for, with `facts`), takes it as that same frame without decoding it again:
  // true, and line(), offset(), size(), line_text() and facts() are this line's (its own
  // lf_terminated). Otherwise false, and the line waits for next(), which decodes it as usual
  // (line_text() is empty until then).
  // A differ reading two recordings of one session in step decodes each shared line once.
  bool next_is(std::string_view text, const LineFacts& facts);

  // Facts about the line most recently returned by next() (or taken by next_is()).
  const LineFacts& facts() const { return facts_; }
  const std::string& file() const { return source_.file(); }
  std::size_t line() const { return line_no_; }
  // The line most recently returned, as it is in the file (without LF); valid until next().
  std::string_view line_text() const { return text_; }
  // Frees the memory the line most recently returned took in the read buffer when it was long
  // (its Frame holds what it decoded): line_text() is empty from then on. A player holding a
  // multi-MiB frame while it runs keeps one copy of it, not two.
  void release_line() {
    text_ = {};
    source_.release_excess();
  }
  // Takes back a frame this reader returned, once the caller is done with it: its raw buffer
  // (when large) holds the next large frame, so a session of multi-MiB frames does not map and
  // fault a new one for each (the buffer kept is at most the largest frame's).
  void recycle(Frame&& frame) {
    if (frame.raw.capacity() >= kRecycledBytes && frame.raw.capacity() > spare_.capacity())
      spare_ = std::move(frame.raw);
  }
  // Byte offset in the file of the line most recently returned, and its size without LF.
  std::uint64_t offset() const { return offset_; }
  std::size_t size() const { return size_; }

  // Goes on from the line at byte `offset` (a line's offset(), or one past a line and its LF),
  // numbering it `line`: a second reader over a file starts where another one is.
  Result<void> seek(std::uint64_t offset, std::size_t line);

  // The reader's LineSource, started over from the file's first byte (LineSource::rewind), for a
  // second pass over the lines that keeps the buffer the first one grew.
  Result<LineSource> rewound_source() &&;

  TranscriptReader(TranscriptReader&&) = default;
  TranscriptReader& operator=(TranscriptReader&&) = default;

 private:
  TranscriptReader(LineSource source, std::size_t max_line_bytes)
      : source_(std::move(source)), max_line_bytes_(max_line_bytes) {}

  LineSource source_;
  std::size_t max_line_bytes_ = 0;
  std::size_t line_no_ = 0;
  std::uint64_t offset_ = 0;
  std::size_t size_ = 0;
  std::string_view text_;
  LineFacts facts_;
  bool done_ = false;
  static constexpr std::size_t kRecycledBytes = 256 * 1024;  // smaller buffers come from the heap
  std::string spare_;  // a large raw buffer given back by recycle(), for the next large frame
  bool decode_ = true;      // next() decodes a canonical line's raw (next_undecoded: not)
  bool undecoded_ = false;  // the line read last is canonical and its raw not decoded yet
  // A line next_is() read and did not take: next() starts from it.
  std::optional<std::optional<Result<LineSource::Line>>> pending_;
};

// Parses one transcript line (without its LF) into a Frame; errors name `file` and `line`.
// Tries parse_canonical_line first.
Result<Frame> parse_transcript_line(std::string_view text, const std::string& file, std::size_t line);

// The general path alone: the line parsed as JSON and its members checked.
Result<Frame> parse_transcript_line_general(std::string_view text, const std::string& file, std::size_t line);

// The fast path: when `text` is byte for byte what canonical_line(dir, raw) writes for a raw
// that is valid UTF-8, that Frame (raw decoded, `line` set); else nullopt, and the general
// path decides (the line may still be valid, only not canonical). With `decode` false the raw
// is not decoded (Frame::raw stays empty): a check that the line is canonical, and its dir.
std::optional<Frame> parse_canonical_line(std::string_view text, std::size_t line, bool decode = true);
// The same, decoding into `storage` (its capacity reused; it is left as it was when the line is
// not canonical).
std::optional<Frame> parse_canonical_line(std::string_view text, std::size_t line, std::string& storage);

// Reads a whole transcript, stopping at the first bad line. For small files and tests.
Result<std::vector<Frame>> read_transcript(const std::filesystem::path& path);

}  // namespace msptk
