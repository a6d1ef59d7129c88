// FdLink is the ClientLink (player.hpp) of a real connection: the player's ends of two pipes, one
// carrying the client's frames to the recorder (which forwards them to the host, recording them
// on the way) and one carrying back what the recorder forwards from the host. It owns both
// descriptors. Writes never block the reading: while a frame is being written, what arrives is
// read and handed to the caller line by line, so a host that writes while its stdin is full
// cannot deadlock the two, and a write ends at its deadline when the host stops reading
// (`stalled()`: the recorder is then told to give up on the client, scripted_record.hpp).
// What it holds is bounded: the line in progress up to `max_line` bytes (default
// kMaxLineBytes, player.hpp); past that the line streams
// through an EnvelopeScan (envelope_scan.hpp) and only its envelope is kept; and at most a few
// reads' worth of complete lines wait to be taken.
#pragma once

#include "msptk/script/player.hpp"

#include <deque>
#include <memory>
#include <string>

namespace msptk::script {

class FdLink final : public ClientLink {
 public:
  FdLink(int from_host, int to_host, std::size_t max_line = kMaxLineBytes);
  ~FdLink() override;
  FdLink(const FdLink&) = delete;
  FdLink& operator=(const FdLink&) = delete;

  Sent send(std::string_view frame, Clock::time_point deadline, const LineSink& arrived) override;
  Got next(ServerLine& line, Clock::time_point deadline) override;

  // A send timed out: the host stopped taking the client's bytes.
  bool stalled() const { return stalled_; }
  // The client's end of the session: closes the pipe to the host (its stdin is closed next).
  void close_send();
  // Reads and drops what the host still writes until its output ends.
  void drain();

 private:
  void read_available();  // a few reads at most; sets eof_
  void split(std::string_view chunk);
  void end_line();

  int in_, out_;
  std::size_t max_line_;
  std::string partial_;                 // the line in progress, while it fits
  std::unique_ptr<EnvelopeScan> long_;  // the line in progress, once past max_line_
  std::deque<ServerLine> ready_;        // complete lines not yet taken
  bool eof_ = false;
  bool stalled_ = false;
  bool discard_ = false;                // drain(): lines are dropped as they are cut
};

}  // namespace msptk::script
