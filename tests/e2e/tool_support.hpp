// Shared pieces of the scripted test peers (fake_host, fake_client): a running FNV-1a checksum
// of a byte stream, an inbox that cuts what a descriptor delivers into LF frames, paced
// writes, the JSON report each peer leaves behind for the test to read, and spawning the command
// a test client talks to.
#pragma once

#include "msptk/process/fd_io.hpp"
#include "msptk/process/host_process.hpp"
#include "msptk/transcript/framing.hpp"

#include <boost/json.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <cstdint>
#include <deque>
#include <fstream>
#include <iostream>
#include <memory>
#include <poll.h>
#include <string>
#include <string_view>
#include <thread>
#include <unistd.h>
#include <vector>

namespace msptk::e2e {

// A test client spawns the command under test (msptk record, serve-fixture, ...) with its
// stdin and stdout as pipes and its stderr inherited; nullptr (after saying why on stderr,
// prefixed by `who`) when it cannot be spawned.
inline std::unique_ptr<process::HostProcess> spawn_command(const std::vector<std::string>& command,
                                                           std::string_view who) {
  process::SpawnSpec spec;
  spec.argv = command;
  spec.pipe_stderr = false;
  auto child = process::spawn_host(spec);
  if (!child) {
    std::cerr << who << ": " << child.error().render() << "\n";
    return nullptr;
  }
  return std::move(*child);
}

// Byte count and FNV-1a (64-bit) of everything that went one way.
struct Checksum {
  std::uint64_t bytes = 0;
  std::uint64_t hash = 14695981039346656037ull;
  void add(std::string_view data) {
    bytes += data.size();
    for (unsigned char c : data) {
      hash ^= c;
      hash *= 1099511628211ull;
    }
  }
  boost::json::object json() const { return {{"bytes", bytes}, {"fnv1a", fmt::format("{:016x}", hash)}}; }
};

// Reads a descriptor in chunks of at most `chunk` bytes and queues the non-empty frames.
class Inbox {
 public:
  Inbox(int fd, std::size_t chunk) : fd_(fd), chunk_(chunk) {}

  // One read; false at EOF or on an error. Non-blocking descriptors may read nothing.
  bool read_once() {
    std::string buffer(chunk_, '\0');
    process::IoResult r = process::read_some(fd_, buffer.data(), buffer.size());
    if (r.error == EAGAIN) return true;
    if (r.eof || r.error) {
      eof_ = true;
      return false;
    }
    std::string_view data(buffer.data(), r.bytes);
    checksum_.add(data);
    framer_.feed(data, [&](const FramedLine& line) {
      if (!line.bytes.empty() && line.bytes != "\r") frames_.emplace_back(line.bytes);
    });
    return true;
  }
  // Blocks (poll) until a frame is queued; nullopt at EOF.
  std::optional<std::string> next() {
    while (frames_.empty()) {
      if (eof_) return std::nullopt;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, -1) < 0 && errno != EINTR) return std::nullopt;
      read_once();
    }
    std::string front = std::move(frames_.front());
    frames_.pop_front();
    return front;
  }
  void drain_to_eof() {
    while (!eof_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, -1) < 0 && errno != EINTR) return;
      read_once();
    }
  }
  const Checksum& checksum() const { return checksum_; }
  std::string_view pending() const { return framer_.pending(); }

 private:
  int fd_;
  std::size_t chunk_;
  LineFramer framer_;
  std::deque<std::string> frames_;
  Checksum checksum_;
  bool eof_ = false;
};

// Writes `bytes` in pieces of at most `chunk` bytes, pausing `pause_us` between pieces.
// Returns false when the reader went away.
inline bool paced_write(int fd, std::string_view bytes, std::size_t chunk, unsigned pause_us, Checksum& sent) {
  while (!bytes.empty()) {
    std::string_view piece = bytes.substr(0, chunk);
    process::IoResult r = process::write_all(fd, piece);
    sent.add(piece.substr(0, r.bytes));
    if (r.error) return false;
    bytes.remove_prefix(piece.size());
    if (pause_us && !bytes.empty()) std::this_thread::sleep_for(std::chrono::microseconds(pause_us));
  }
  return true;
}

inline void write_report(const std::string& path, const boost::json::object& report) {
  if (path.empty()) return;
  std::ofstream out(path + ".tmp", std::ios::binary);
  out << boost::json::serialize(report) << "\n";
  out.close();
  std::rename((path + ".tmp").c_str(), path.c_str());
}

}  // namespace msptk::e2e
