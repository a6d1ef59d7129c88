#include "msptk/transcript/writer.hpp"
#include "msptk/transcript/utf8.hpp"

#include "msptk/transcript/json_parse.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace msptk {

bool is_valid_utf8(std::string_view bytes) {
  const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t n = bytes.size();
  std::size_t i = 0;
  while (i < n) {
    // ASCII runs 8 bytes at a time.
    while (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, s + i, 8);
      if (w & 0x8080808080808080ULL) break;
      i += 8;
    }
    if (i >= n) break;
    if (s[i] < 0x80) {
      ++i;
      continue;
    }
    const std::size_t len = utf8_sequence_length(s + i, n - i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

std::string lossy_utf8(std::string_view bytes) {
  std::string out;
  std::size_t i = 0;
  while (i < bytes.size()) {
    std::size_t len = 1;
    while (len <= 4 && i + len <= bytes.size() && !is_valid_utf8(bytes.substr(i, len))) ++len;
    if (len <= 4 && i + len <= bytes.size()) {
      out.append(bytes.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

std::string base64_encode(std::string_view bytes) {
  static constexpr char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    unsigned v = (unsigned char)bytes[i] << 16 | (unsigned char)bytes[i + 1] << 8 | (unsigned char)bytes[i + 2];
    out += table[v >> 18];
    out += table[(v >> 12) & 63];
    out += table[(v >> 6) & 63];
    out += table[v & 63];
  }
  if (i < bytes.size()) {
    unsigned v = (unsigned char)bytes[i] << 16;
    if (i + 1 < bytes.size()) v |= (unsigned char)bytes[i + 1] << 8;
    out += table[v >> 18];
    out += table[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? table[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      char c = text[i + k];
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        v[k] = 0;
        ++pad;
      } else {
        if (pad) return std::nullopt;
        v[k] = value(c);
        if (v[k] < 0) return std::nullopt;
      }
    }
    unsigned n = v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3];
    out += static_cast<char>(n >> 16);
    if (pad < 2) out += static_cast<char>((n >> 8) & 0xFF);
    if (pad < 1) out += static_cast<char>(n & 0xFF);
  }
  return out;
}

std::string canonical_line(Direction dir, std::string_view bytes) {
  LineBuffer line;
  append_canonical_line(line, dir, bytes);
  const std::string_view text = line.view();
  return std::string(text.substr(0, text.size() - 1));  // without the LF
}

Result<TranscriptWriter> TranscriptWriter::create(const std::filesystem::path& path, std::filesystem::perms perms) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, static_cast<mode_t>(perms));
  if (fd < 0) return Error::unreadable(path.string(), fmt::format("cannot create: {}", std::strerror(errno)));
  return TranscriptWriter(path.string(), fd);
}

TranscriptWriter::TranscriptWriter(TranscriptWriter&& other) noexcept
    : file_(std::move(other.file_)), fd_(other.fd_), lines_(other.lines_) {
  other.fd_ = -1;
}

TranscriptWriter& TranscriptWriter::operator=(TranscriptWriter&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    file_ = std::move(other.file_);
    fd_ = other.fd_;
    lines_ = other.lines_;
    other.fd_ = -1;
  }
  return *this;
}

TranscriptWriter::~TranscriptWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void TranscriptWriter::stage(Direction dir, std::string_view bytes) {
  append_canonical_line(staged_, dir, bytes);
  ++staged_lines_;
}

Result<void> TranscriptWriter::flush() {
  std::string_view rest = staged_.view();
  while (!rest.empty()) {
    ssize_t n = ::write(fd_, rest.data(), rest.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::size_t first = lines_ + 1;
      staged_.clear();
      staged_lines_ = 0;
      return Error::unreadable(file_, fmt::format("cannot write line {}: {}", first, std::strerror(errno)));
    }
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  lines_ += staged_lines_;
  staged_lines_ = 0;
  // Keep the buffer of a usual chunk for the next one; give back the memory of a huge frame.
  if (staged_.capacity() > (std::size_t{1} << 20)) {
    staged_.release();
  } else {
    staged_.clear();
  }
  return {};
}

Result<void> TranscriptWriter::append(Direction dir, std::string_view bytes) {
  stage(dir, bytes);
  return flush();
}

}  // namespace msptk
