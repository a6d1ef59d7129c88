// The line encoder writes the canonical transcript line of a frame (writer.hpp),
//   {"dir":"client","raw":"<JSON-escaped bytes>"}
// in one pass over the frame's bytes: runs that need no escape are found and copied 16 bytes at
// a time (SSE2, which every x86-64 has; one byte at a time elsewhere), each `"`, `\` and control
// byte is escaped where it is met, and every non-ASCII sequence is checked as UTF-8 on the way
// (the rules of is_valid_utf8). A frame that turns out not to be UTF-8 is written again by the
// general path (a lossy `raw` and `rawBase64`), so the line is always byte for byte what
// canonical_line() gives: tests/unit/line_encoder_test.cpp holds the two to that.
//
// It writes into a LineBuffer: bytes reached through a pointer, grown by doubling without
// zero-filling, so the recorder stages the lines of a read chunk without a copy per line.
#pragma once

#include "msptk/transcript/frame.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>

namespace msptk {

// The head of every canonical line, before the escaped raw; the same length for both directions.
inline constexpr std::string_view kCanonicalClientHead = R"({"dir":"client","raw":")";
inline constexpr std::string_view kCanonicalServerHead = R"({"dir":"server","raw":")";
inline constexpr std::size_t kCanonicalHeadSize = kCanonicalClientHead.size();
static_assert(kCanonicalServerHead.size() == kCanonicalHeadSize);

// The direction of a line that starts with a canonical head (nullopt when it does not).
inline std::optional<Direction> canonical_head_dir(std::string_view line) {
  if (line.starts_with(kCanonicalClientHead)) return Direction::client;
  if (line.starts_with(kCanonicalServerHead)) return Direction::server;
  return std::nullopt;
}

class LineBuffer {
 public:
  std::string_view view() const { return {data_.get(), size_}; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t capacity() const { return capacity_; }
  // Forgets the bytes (keeps the memory).
  void clear() { size_ = 0; }
  // Cuts back to the first `size` bytes (size <= size()).
  void truncate(std::size_t size) { size_ = size; }
  // Gives the memory back.
  void release();
  void append(std::string_view bytes);

  // Room for `n` more bytes: where to write them; commit(end) then says how far was written.
  char* room(std::size_t n);
  void commit(char* end) { size_ = static_cast<std::size_t>(end - data_.get()); }

 private:
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

// Appends the canonical line of the frame and its LF. Returns whether `bytes` are valid UTF-8
// (false: the line has a `rawBase64` member).
bool append_canonical_line(LineBuffer& out, Direction dir, std::string_view bytes);

// Appends the inside of `raw` for `bytes` (what append_json_escaped writes) when they are valid
// UTF-8 and returns true; returns false when they are not (what was appended is then
// unspecified: cut it back).
bool append_escaped_utf8(LineBuffer& out, std::string_view bytes);
// The same, one byte at a time: the reference for the one above, and what it is where there is
// no SSE2.
bool append_escaped_utf8_scalar(LineBuffer& out, std::string_view bytes);

}  // namespace msptk
