// A PendingFrame holds one direction's frame in progress: the bytes read since the last LF.
// Up to `memory_limit` bytes stay in memory; past that (a peer writing a huge frame, or bytes
// that never see an LF) everything goes to a spill file in the scenario folder, written through
// the recorder's Disk as the bytes arrive, so the recorder's memory never depends on what a
// peer writes. Whatever the frame's size, the PendingFrame knows its length, whether it is
// valid UTF-8, its last byte, its first and last kEdgeBytes, and (once spilled) its SHA-256.
//
// When the LF comes the Tee records the frame (from memory, or streamed from the spill file);
// when the direction ends without one the bytes become the direction's unterminated tail,
// kept in a side file (capture.hpp). Without a Disk (replay) the frame stays in memory.
// With `spill_unnamed` (the Tee under --redact) the spill file has no name (Disk::
// create_unnamed): the bytes of a frame not yet redacted are never in a file that a crash or a
// SIGKILL could leave behind; the spill is then read back through its descriptor.
// Single-threaded.
#pragma once

#include "msptk/recorder/disk.hpp"
#include "msptk/transcript/frame.hpp"
#include "msptk/transcript/sha256.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace msptk::recorder {

constexpr std::size_t kEdgeBytes = 64;                    // first/last bytes kept for the manifest
constexpr std::size_t kDefaultMemoryLimit = 1024 * 1024;  // per direction, before spilling

// Incremental UTF-8 validation over pieces cut anywhere.
class Utf8Stream {
 public:
  void feed(std::string_view bytes);
  // True when everything fed is well-formed UTF-8 and no sequence is left incomplete.
  bool valid() const { return valid_ && carry_.empty(); }

 private:
  bool valid_ = true;
  std::string carry_;  // an incomplete sequence at the end of the last piece (at most 3 bytes)
};

// Where a piece of UTF-8 text may be cut so that no sequence is split: the offset of the
// trailing incomplete sequence (a lead byte whose continuation bytes are not all there), or
// bytes.size() when there is none.
std::size_t utf8_cut(std::string_view bytes);

class PendingFrame {
 public:
  // disk null: never spills.
  PendingFrame(Disk* disk, std::filesystem::path spill_path, std::size_t memory_limit = kDefaultMemoryLimit)
      : disk_(disk), spill_path_(std::move(spill_path)), limit_(memory_limit) {}
  ~PendingFrame();
  PendingFrame(const PendingFrame&) = delete;
  PendingFrame& operator=(const PendingFrame&) = delete;

  // Spill to a file without a name (see above). Set before the first append.
  void spill_unnamed(bool unnamed) { unnamed_ = unnamed; }

  // Adds bytes of the frame (no LF among them). Fails only when the spill file cannot be written.
  Result<void> append(std::string_view part);

  bool empty() const { return size_ == 0; }
  std::uint64_t size() const { return size_; }
  bool spilled() const { return spill_ != nullptr || spilled_closed_; }
  // The bytes, while not spilled.
  std::string_view bytes() const { return memory_; }
  const std::filesystem::path& spill_path() const { return spill_path_; }
  // Closes the spill file (with `sync`, fsync first: a file that is kept); the frame can then
  // be read back. An unnamed spill file stays open for reading until reset().
  Result<void> close_spill(bool sync = false);
  // Hands the first `bytes` bytes of the spill file to `on_piece` in pieces of exactly `piece`
  // bytes (the last one shorter), stopping at the first error.
  Result<void> read_back(std::uint64_t bytes, std::size_t piece,
                         const std::function<Result<void>(std::string_view)>& on_piece) const;

  // Whether the bytes are UTF-8 (of a spilled frame: read from its spill file when asked).
  bool valid_utf8() const;
  char last_byte() const { return last_; }
  std::string head() const;
  std::string tail() const;
  // SHA-256 of every byte (lowercase hex).
  std::string sha256() const;

  // Forgets the frame (a new one starts); a spill file is removed unless `keep_file`.
  void reset(bool keep_file = false);
  // The bytes of a frame held in memory (not spilled), moved out, and the frame reset: it
  // keeps no buffer, so a large frame is not held twice, nor after it was handed on.
  std::string take_bytes();

 private:
  Result<void> append_to_spill(std::string_view part);
  Result<void> write_spill(std::string_view bytes);

  Disk* disk_;
  std::filesystem::path spill_path_;
  std::size_t limit_;
  std::string memory_;
  std::unique_ptr<OutFile> spill_;
  bool spilled_closed_ = false;
  bool unnamed_ = false;
  std::uint64_t size_ = 0;
  char last_ = 0;
  std::string head_;  // first kEdgeBytes, once spilled
  std::string tail_;  // last kEdgeBytes, once spilled
  // Set only once a write to the spill file failed: the digest of every byte from then on
  // (the file no longer holds them all). Otherwise sha256() reads the spill file.
  std::optional<Sha256> digest_;
};

}  // namespace msptk::recorder

namespace msptk::recorder {

// Writes the canonical transcript line (writer.hpp: raw, and rawBase64 when the bytes are not
// UTF-8, then LF) of a spilled frame to `out`, reading the frame back from its closed spill
// file in pieces: the same bytes canonical_line() would give, without holding the frame.
// Returns whether the frame is UTF-8: it is checked while it is escaped, and a frame that is
// not is cut back from `out` and written again in its other form.
Result<bool> write_spilled_line(Direction dir, const PendingFrame& frame, OutFile& out);

}  // namespace msptk::recorder
