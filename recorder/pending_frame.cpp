#include "msptk/recorder/pending_frame.hpp"

#include "msptk/transcript/writer.hpp"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace msptk::recorder {

namespace {

constexpr std::filesystem::perms kPrivateFile =
    std::filesystem::perms::owner_read | std::filesystem::perms::owner_write;

// Length of the sequence a lead byte announces (1 for ASCII and for bytes that cannot lead).
std::size_t sequence_length(unsigned char c) {
  if ((c & 0xE0) == 0xC0) return 2;
  if ((c & 0xF0) == 0xE0) return 3;
  if ((c & 0xF8) == 0xF0) return 4;
  return 1;
}

// Hands the first `bytes` bytes of the file at `path` to `on_piece`, in pieces (fewer when the
// file is shorter or cannot be read: what it holds is all there is of them).
template <class OnPiece>
void each_file_piece(const std::filesystem::path& path, std::uint64_t bytes, OnPiece on_piece) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  std::string buffer(256 * 1024, '\0');
  while (bytes > 0) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, buffer.size()));
    const ssize_t n = ::read(fd, buffer.data(), want);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    on_piece(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
    bytes -= static_cast<std::uint64_t>(n);
  }
  ::close(fd);
}

void hash_file(const std::filesystem::path& path, std::uint64_t bytes, Sha256& digest) {
  each_file_piece(path, bytes, [&](std::string_view piece) { digest.update(piece); });
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

PendingFrame::~PendingFrame() {
  if (spill_) (void)spill_->close();
}

Result<void> PendingFrame::append(std::string_view part) {
  if (part.empty()) return {};
  size_ += part.size();
  last_ = part.back();
  if (!spill_ && !spilled_closed_) {
    if (!disk_ || memory_.size() + part.size() <= limit_) {
      memory_.append(part);
      return {};
    }
    // Spill: from now on the bytes go to the file as they come.
    auto file = disk_->create(spill_path_, kPrivateFile);
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
  if (!spill_) return Error::unreadable(spill_path_.string(), "cannot append to a closed spill file");
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
    hash_file(spill_path_, before, *digest_);
    digest_->update(bytes);
  }
  return ok;
}

Result<void> PendingFrame::close_spill(bool sync) {
  if (!spill_) return {};
  auto file = std::move(spill_);
  spilled_closed_ = true;
  if (sync) {
    if (auto ok = file->sync(); !ok) return ok.error();
  }
  return file->close();
}

bool PendingFrame::valid_utf8() const {
  if (!spilled()) return is_valid_utf8(memory_);
  Utf8Stream utf8;
  each_file_piece(spill_path_, size_, [&](std::string_view piece) { utf8.feed(piece); });
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
  hash_file(spill_path_, size_, digest);
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
  if (spilled() && !keep_file && disk_) disk_->remove(spill_path_);
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
