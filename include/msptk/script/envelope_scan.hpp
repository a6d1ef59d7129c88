// An EnvelopeScan reads a server line too long for the player to hold (fd_link.hpp: past
// kMaxLineBytes), piece by piece as it arrives, and keeps only its envelope: whether it is a JSON
// object, its top-level "jsonrpc", "id" and "method" (each at most kMaxEnvelopeValueBytes) and
// whether it has a top-level "result" or "error". Nothing else is kept, so memory stays bounded
// whatever the line's size or shape (nesting is followed to kMaxScanDepth levels; deeper is "not
// an object the scan can read"). The bytes themselves are not lost: the recorder records the line
// whole (spilling it as it arrives, recorder/pending_frame.hpp). Single-threaded.
#pragma once

#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace msptk::script {

inline constexpr std::size_t kMaxEnvelopeValueBytes = 4096;
inline constexpr std::size_t kMaxScanDepth = 10000;

// What an EnvelopeScan kept of a long line.
struct LongFrame {
  std::uint64_t bytes = 0;       // the line's size (without LF)
  bool object = false;           // the line is one JSON object (read to its end)
  bool jsonrpc = false;          // "jsonrpc": "2.0"
  std::optional<boost::json::value> id;  // an integer or string id (a longer string: not kept)
  std::optional<std::string> method;     // a string method (a longer one: not kept)
  bool has_result = false, has_error = false;
  bool value_too_long = false;   // an id or method longer than kMaxEnvelopeValueBytes
};

class EnvelopeScan {
 public:
  EnvelopeScan();
  ~EnvelopeScan();
  EnvelopeScan(const EnvelopeScan&) = delete;
  EnvelopeScan& operator=(const EnvelopeScan&) = delete;

  // The next bytes of the line (no LF among them).
  void feed(std::string_view piece);
  // The line ended: what was kept.
  LongFrame finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace msptk::script
