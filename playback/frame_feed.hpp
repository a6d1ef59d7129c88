// Internal to playback: a FrameFeed hands a live verb the recorded frames it plays, in wire
// order, one at a time: from frames already in memory (a FixtureScript built by a test or a
// fuzz target), or read from the transcript file as the session advances (TranscriptReader:
// 1 MiB reads, the current line only). Read from a file, a session holds one recorded frame
// (and the reader's buffer) whatever the transcript's length; the frames are numbered in the
// order they come (index(), from 0), which is what the facts a player keeps about them refer to.
#pragma once

#include "msptk/transcript/error.hpp"
#include "msptk/transcript/frame.hpp"
#include "msptk/transcript/reader.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace msptk::playback {

class FrameFeed {
 public:
  // The frames of `frames`, which must outlive the feed.
  explicit FrameFeed(const std::vector<Frame>& frames);
  // The frames of a transcript file, read as the feed advances; an unreadable file is an error.
  static Result<FrameFeed> open(const std::filesystem::path& file);

  // The frame at the cursor, valid until advance(); nullptr at the end or after a read error.
  const Frame* current() const { return current_; }
  // The cursor's position: the number of frames advanced past.
  std::size_t index() const { return index_; }
  // Moves to the next frame (from the end, stays there).
  void advance();
  // A second feed over the same frames, at the frame after the current one (its index() one
  // more), leaving this one where it is: a player looks ahead in its script with it. Read from a
  // file, the file is opened again and read from that line on (nothing before it is read again);
  // it holds one frame, as this one does. At the end, a feed at the end.
  Result<FrameFeed> ahead() const;
  // The line that could not be read (it ends the feed: current() is nullptr from then on).
  const std::optional<Error>& error() const { return error_; }

  FrameFeed(FrameFeed&& other) noexcept;
  FrameFeed& operator=(FrameFeed&&) = delete;
  FrameFeed(const FrameFeed&) = delete;
  FrameFeed& operator=(const FrameFeed&) = delete;

 private:
  FrameFeed(TranscriptReader reader, std::filesystem::path file, std::size_t index);
  FrameFeed(const std::vector<Frame>& frames, std::size_t index);
  void read();

  const std::vector<Frame>* frames_ = nullptr;  // in memory
  std::optional<TranscriptReader> reader_;      // from a file
  Frame owned_;                                 // the reader's current frame
  const Frame* current_ = nullptr;
  std::size_t index_ = 0;
  std::optional<Error> error_;
  std::filesystem::path file_;      // from a file: its path
  std::uint64_t next_offset_ = 0;   // from a file: where the line after the current one starts
};

}  // namespace msptk::playback
