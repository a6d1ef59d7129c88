#include "msptk/recorder/pending_frame.hpp"

#include "msptk/transcript/writer.hpp"

#include <algorithm>

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
    digest_.emplace();
    head_ = memory_.substr(0, kEdgeBytes);
    std::string memory;
    memory.swap(memory_);  // releases the buffer
    digest_->update(memory);
    utf8_.feed(memory);
    tail_ = memory.size() > kEdgeBytes ? memory.substr(memory.size() - kEdgeBytes) : memory;
    if (auto ok = spill_->write(memory); !ok) return ok.error();
  }
  if (!spill_) return Error::unreadable(spill_path_.string(), "cannot append to a closed spill file");
  if (head_.size() < kEdgeBytes) head_ += std::string(part.substr(0, kEdgeBytes - head_.size()));
  digest_->update(part);
  utf8_.feed(part);
  if (part.size() >= kEdgeBytes) {
    tail_ = std::string(part.substr(part.size() - kEdgeBytes));
  } else {
    tail_ += part;
    if (tail_.size() > kEdgeBytes) tail_.erase(0, tail_.size() - kEdgeBytes);
  }
  return spill_->write(part);
}

Result<void> PendingFrame::close_spill() {
  if (!spill_) return {};
  auto file = std::move(spill_);
  spilled_closed_ = true;
  if (auto ok = file->sync(); !ok) return ok.error();
  return file->close();
}

bool PendingFrame::valid_utf8() const { return spilled() ? utf8_.valid() : is_valid_utf8(memory_); }

std::string PendingFrame::head() const { return spilled() ? head_ : memory_.substr(0, kEdgeBytes); }

std::string PendingFrame::tail() const {
  if (spilled()) return tail_;
  return memory_.size() > kEdgeBytes ? memory_.substr(memory_.size() - kEdgeBytes) : memory_;
}

std::string PendingFrame::sha256() const {
  if (!spilled()) return sha256_hex(memory_);
  Sha256 copy = *digest_;
  return copy.hex();
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
  utf8_ = Utf8Stream();
}

}  // namespace msptk::recorder
