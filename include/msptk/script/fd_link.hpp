// FdLink is the ClientLink (player.hpp) of a real connection: the player's ends of two pipes, one
// carrying the client's frames to the recorder (which forwards them to the host, recording them
// on the way) and one carrying back what the recorder forwards from the host. It owns both
// descriptors. Writes never block the reading: while a frame is being written, what arrives is
// read into the inbound buffer, so a host that writes while its stdin is full cannot deadlock
// the two.
#pragma once

#include "msptk/script/player.hpp"

#include <string>

namespace msptk::script {

class FdLink final : public ClientLink {
 public:
  FdLink(int from_host, int to_host);
  ~FdLink() override;
  FdLink(const FdLink&) = delete;
  FdLink& operator=(const FdLink&) = delete;

  bool send(std::string_view frame) override;
  Got next(std::string& line, Clock::time_point deadline) override;

  // The client's end of the session: closes the pipe to the host (its stdin is closed next).
  void close_send();
  // Reads and drops what the host still writes until its output ends.
  void drain();

 private:
  bool read_available();  // false at EOF
  bool take_line(std::string& line);

  int in_, out_;
  std::string inbound_;
  std::size_t start_ = 0;
  bool eof_ = false;
};

}  // namespace msptk::script
