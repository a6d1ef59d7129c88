#include "msptk/recorder/pending_frame.hpp"

#include "msptk/transcript/writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace msptk::recorder {

namespace {

constexpr std::size_t kReadPiece = 256 * 1024;

constexpr std::filesystem::perms kPrivateFile =
    std::filesystem::perms::owner_read | std::filesystem::perms::owner_write;

// Length of the sequence a lead byte announces (1 for ASCII and for bytes that cannot lead).
std::size_t sequence_length(unsigned char c) {
  if ((c & 0xE0) == 0xC0) return 2;
  if ((c & 0xF0) == 0xE0) return 3;
  if ((c & 0xF8) == 0xF0) return 4;
  return 1;
}

}  // namespace

std::size_t utf8_cut(std::string_view bytes) {
  const std::size_t n = bytes.size();
  for (std::size_t back = 1; back <= 3 && back <= n; ++back) {
    const auto c = static_cast<unsigned char>(bytes[n - back]);
    if (c < 0x80) return n;           // ASCII: nothing open
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    return sequence_length(c) > back ? n - back : n;
  }
  return n;
}

void Utf8Stream::feed(std::string_view bytes) {
  if (!valid_) return;
  if (!carry_.empty()) {
    // Complete the sequence the last piece ended inside.
    const std::size_t want = sequence_length(static_cast<unsigned char>(carry_[0]));
    const std::size_t take = std::min(want - carry_.size(), bytes.size());
    carry_.append(bytes.substr(0, take));
    bytes.remove_prefix(take);
    if (carry_.size() < want) return;
    if (!is_valid_utf8(carry_)) {
      valid_ = false;
      return;
    }
    carry_.clear();
  }
  const std::size_t cut = utf8_cut(bytes);
  if (!is_valid_utf8(bytes.substr(0, cut))) {
    valid_ = false;
    return;
  }
  carry_ = std::string(bytes.substr(cut));
}

Result<void> PendingFrame::read_back(std::uint64_t bytes, std::size_t piece,
                                     const std::function<Result<void>(std::string_view)>& on_piece) const {
  auto failed = [&](int err) {
    return Error::unreadable(spill_path_.string(), fmt::format("cannot read back: {}", std::strerror(err)));
  };
  // An unnamed spill file is read through its own descriptor; a named one is opened again.
  int fd = unnamed_ && spill_ ? spill_->descriptor() : -1;
  const bool own = fd < 0;
  if (own) fd = ::open(spill_path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return failed(errno);
  std::string buffer(std::max<std::size_t>(piece, 1), '\0');
  std::uint64_t offset = 0;
  std::size_t filled = 0;
  Result<void> status;
  while (offset < bytes) {
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(bytes - offset, buffer.size() - filled));
    const ssize_t n = ::pread(fd, buffer.data() + filled, want, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      status = failed(errno);
      break;
    }
    if (n == 0) break;  // the file holds fewer bytes (a failed write): what it holds is all there is
    offset += static_cast<std::uint64_t>(n);
    filled += static_cast<std::size_t>(n);
    if (filled == buffer.size()) {
      status = on_piece(std::string_view(buffer.data(), filled));
      filled = 0;
      if (!status) break;
    }
  }
  if (status && filled > 0) status = on_piece(std::string_view(buffer.data(), filled));
  if (own) ::close(fd);
  return status;
}

PendingFrame::~PendingFrame() {
  if (spill_) (void)spill_->close();
}

Result<void> PendingFrame::append(std::string_view part) {
  if (part.empty()) return {};
  size_ += part.size();
  last_ = part.back();
  if (!spilled()) {
    if (!disk_ || memory_.size() + part.size() <= limit_) {
      memory_.append(part);
      return {};
    }
    // Spill: from now on the bytes go to the file as they come.
    auto file = unnamed_ ? disk_->create_unnamed(spill_path_.parent_path(), spill_path_, kPrivateFile)
                         : disk_->create(spill_path_, kPrivateFile);
    if (!file) return file.error();
    spill_ = std::move(*file);
    head_ = memory_.substr(0, kEdgeBytes);
    std::string memory;
    memory.swap(memory_);  // releases the buffer
    tail_ = memory.size() > kEdgeBytes ? memory.substr(memory.size() - kEdgeBytes) : memory;
    // A failed write still leaves `part` to describe (its size is counted): the first error
    // is returned once it is.
    if (auto ok = write_spill(memory); !ok) {
      (void)append_to_spill(part);
      return ok.error();
    }
  }
  if (!spill_ || spilled_closed_) return Error::unreadable(spill_path_.string(), "cannot append to a closed spill file");
  return append_to_spill(part);
}

Result<void> PendingFrame::append_to_spill(std::string_view part) {
  if (head_.size() < kEdgeBytes) head_ += std::string(part.substr(0, kEdgeBytes - head_.size()));
  if (part.size() >= kEdgeBytes) {
    tail_ = std::string(part.substr(part.size() - kEdgeBytes));
  } else {
    tail_ += part;
    if (tail_.size() > kEdgeBytes) tail_.erase(0, tail_.size() - kEdgeBytes);
  }
  return write_spill(part);
}

Result<void> PendingFrame::write_spill(std::string_view bytes) {
  if (digest_) {
    digest_->update(bytes);
    return spill_->write(bytes);
  }
  const std::uint64_t before = spill_->size();
  auto ok = spill_->write(bytes);
  if (!ok) {
    // The file now lacks bytes: from here on the digest is kept as the bytes come, starting
    // from the ones the file got before this write.
    digest_.emplace();
    (void)read_back(before, kReadPiece, [&](std::string_view piece) -> Result<void> {
      digest_->update(piece);
      return {};
    });
    digest_->update(bytes);
  }
  return ok;
}

Result<void> PendingFrame::close_spill(bool sync) {
  if (!spill_ || spilled_closed_) return {};
  spilled_closed_ = true;
  if (sync) {
    if (auto ok = spill_->sync(); !ok) return ok.error();
  }
  if (unnamed_) return {};  // its descriptor is all there is of it: kept until reset()
  auto file = std::move(spill_);
  return file->close();
}

bool PendingFrame::valid_utf8() const {
  if (!spilled()) return is_valid_utf8(memory_);
  Utf8Stream utf8;
  (void)read_back(size_, kReadPiece, [&](std::string_view piece) -> Result<void> {
    utf8.feed(piece);
    return {};
  });
  return utf8.valid();
}

std::string PendingFrame::head() const { return spilled() ? head_ : memory_.substr(0, kEdgeBytes); }

std::string PendingFrame::tail() const {
  if (spilled()) return tail_;
  return memory_.size() > kEdgeBytes ? memory_.substr(memory_.size() - kEdgeBytes) : memory_;
}

std::string PendingFrame::sha256() const {
  if (!spilled()) return sha256_hex(memory_);
  if (digest_) {
    Sha256 copy = *digest_;
    return copy.hex();
  }
  Sha256 digest;
  (void)read_back(size_, kReadPiece, [&](std::string_view piece) -> Result<void> {
    digest.update(piece);
    return {};
  });
  return digest.hex();
}

std::string PendingFrame::take_bytes() {
  std::string bytes;
  bytes.swap(memory_);
  reset();
  return bytes;
}

void PendingFrame::reset(bool keep_file) {
  if (spill_) (void)spill_->close();
  if (spilled() && !keep_file && disk_ && !unnamed_) disk_->remove(spill_path_);
  spill_.reset();
  spilled_closed_ = false;
  memory_.clear();
  size_ = 0;
  last_ = 0;
  head_.clear();
  tail_.clear();
  digest_.reset();
}

}  // namespace msptk::recorder
