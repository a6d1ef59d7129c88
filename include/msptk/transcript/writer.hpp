// TranscriptWriter appends frames in the canonical line form
//   {"dir":"client","raw":"<JSON-escaped bytes>"}\n
// (no spaces, UTF-8 kept as it is, only `"`, `\` and control characters escaped). Bytes that
// are not valid UTF-8 are kept exactly: the line gets a `rawBase64` member beside a lossy `raw`.
// Each frame is written and flushed as one write so a crash loses no completed frame.
#pragma once

#include "msptk/transcript/frame.hpp"
#include "msptk/transcript/line_encoder.hpp"

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace msptk {

// The canonical line for a frame, without the trailing LF.
std::string canonical_line(Direction dir, std::string_view bytes);

class TranscriptWriter {
 public:
  // Creates (or truncates) the file with the given permission bits.
  static Result<TranscriptWriter> create(const std::filesystem::path& path,
                                         std::filesystem::perms perms = std::filesystem::perms::owner_read |
                                                                        std::filesystem::perms::owner_write |
                                                                        std::filesystem::perms::group_read |
                                                                        std::filesystem::perms::others_read);
  TranscriptWriter(TranscriptWriter&& other) noexcept;
  TranscriptWriter& operator=(TranscriptWriter&& other) noexcept;
  ~TranscriptWriter();

  // Appends one frame (its wire bytes) and flushes it to the kernel (with anything staged).
  Result<void> append(Direction dir, std::string_view bytes);
  Result<void> append(const Frame& frame) { return append(frame.dir, frame.wire_bytes()); }

  // Stages one frame's line in memory; flush() hands every staged line to the kernel with one
  // write (the recorder stages the frames of a read chunk, then flushes before forwarding it).
  // A staged line counts in lines_written() once flushed.
  void stage(Direction dir, std::string_view bytes);
  Result<void> flush();

  std::size_t lines_written() const { return lines_; }
  const std::string& file() const { return file_; }

 private:
  TranscriptWriter(std::string file, int fd) : file_(std::move(file)), fd_(fd) {}
  std::string file_;
  int fd_ = -1;
  std::size_t lines_ = 0;
  LineBuffer staged_;
  std::size_t staged_lines_ = 0;
};

// True when `bytes` is well-formed UTF-8.
bool is_valid_utf8(std::string_view bytes);

// `bytes` with every ill-formed UTF-8 sequence replaced by U+FFFD (what `raw` holds beside
// `rawBase64`, and what JSON reports hold for bytes that are not text).
std::string lossy_utf8(std::string_view bytes);

// Standard base64 (RFC 4648, with padding).
std::string base64_encode(std::string_view bytes);
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace msptk
