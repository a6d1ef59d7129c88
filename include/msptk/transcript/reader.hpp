// TranscriptReader streams the lines of a transcript file (transcript.ndjson or a
// *-legs.ndjson file) one at a time: it never holds more than one line in memory. Each line
// yields either a Frame or an Error naming the file, the line and the rule it breaks; reading
// goes on after a bad line so that a validator can report them all.
//
// Accepted line form: a JSON object with members `dir` ("client"|"server") and `raw` (string),
// in any order and with any outer whitespace (the corpus has `{"dir": "client", "raw": ...}`),
// plus the optional `rawBase64` that the recorder writes for bytes that are not UTF-8.
//
// Lines are read with a size cap (ReadLimits): a line longer than the cap, or longer than the
// memory msptk may allocate, is never held: the reader skips to the next LF and returns an
// `unreadable` error naming the file and the line (exit 3), then goes on with the next line.
#pragma once

#include "msptk/transcript/frame.hpp"

#include <filesystem>
#include <fstream>
#include <memory>
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

struct ReadLimits {
  // The longest line held in memory. Default: 1 GiB, or the environment variable
  // MSPTK_MAX_LINE_BYTES when it holds a positive integer.
  std::size_t max_line_bytes = std::size_t{1} << 30;

  static ReadLimits from_environment();
};

class TranscriptReader {
 public:
  static Result<TranscriptReader> open(const std::filesystem::path& path,
                                       ReadLimits limits = ReadLimits::from_environment());

  // The next line: nullopt at end of file, else a Frame or the line's error.
  // An I/O failure is returned once as an `unreadable` error, then the reader ends.
  std::optional<Result<Frame>> next();

  // Facts about the line most recently returned by next().
  const LineFacts& facts() const { return facts_; }
  const std::string& file() const { return file_; }
  std::size_t line() const { return line_no_; }

  TranscriptReader(TranscriptReader&&) = default;
  TranscriptReader& operator=(TranscriptReader&&) = default;

 private:
  TranscriptReader(std::string file, std::unique_ptr<std::ifstream> in, ReadLimits limits);

  // Reads the next line into buffer_ (without its LF); false at end of file. Sets `oversized`
  // (and leaves buffer_ empty) when the line was over the cap or could not be allocated.
  bool read_line(bool& oversized, std::size_t& length);

  std::string file_;
  std::unique_ptr<std::ifstream> in_;
  std::string buffer_;
  std::size_t line_no_ = 0;
  LineFacts facts_;
  ReadLimits limits_;
  bool done_ = false;
};

// Parses one transcript line (without its LF) into a Frame; errors name `file` and `line`.
Result<Frame> parse_transcript_line(std::string_view text, const std::string& file, std::size_t line);

// Reads a whole transcript, stopping at the first bad line. For small files and tests.
Result<std::vector<Frame>> read_transcript(const std::filesystem::path& path);

}  // namespace msptk
