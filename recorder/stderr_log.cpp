#include "msptk/recorder/stderr_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace msptk::recorder {

namespace fs = std::filesystem;

namespace {

constexpr fs::perms kPrivateFile = fs::perms::owner_read | fs::perms::owner_write;
constexpr std::size_t kPiece = 64 * 1024;
constexpr std::size_t kLineWarnings = 10;          // lines named one by one, then a count
constexpr std::size_t kLineCheckBytes = 1 << 20;   // a longer line is checked in parts of this size

}  // namespace

TextScrubber::TextScrubber(std::vector<std::pair<std::string, std::string>> replacements) {
  for (auto& r : replacements) {
    if (r.first.empty()) continue;
    longest_ = std::max(longest_, r.first.size());
    replacements_.push_back(std::move(r));
  }
}

void TextScrubber::feed(std::string_view bytes, const Out& out) {
  if (replacements_.empty()) {
    out(bytes);
    return;
  }
  held_.append(bytes);
  drain(false, out);
}

void TextScrubber::end(const Out& out) {
  drain(true, out);
  held_.clear();
}

void TextScrubber::drain(bool final, const Out& out) {
  // An occurrence starting before `safe` is complete in held_ if it is there at all.
  const std::size_t safe = final ? held_.size() : (held_.size() >= longest_ ? held_.size() - longest_ + 1 : 0);
  std::size_t pos = 0;
  while (true) {
    std::size_t best = std::string::npos;
    const std::pair<std::string, std::string>* found = nullptr;
    for (const auto& r : replacements_) {
      const std::size_t at = held_.find(r.first, pos);
      if (at == std::string::npos) continue;
      if (at < best || (at == best && r.first.size() > found->first.size())) {
        best = at;
        found = &r;
      }
    }
    if (found && best < safe) {
      out(std::string_view(held_).substr(pos, best - pos));
      out(found->second);
      pos = best + found->first.size();
      continue;
    }
    const std::size_t upto = std::max(pos, std::min(safe, best));
    out(std::string_view(held_).substr(pos, upto - pos));
    pos = upto;
    break;
  }
  held_.erase(0, pos);
}

Result<StderrLog> StderrLog::create(Disk& disk, const fs::path& dir, Redactor* redactor) {
  StderrLog log;
  auto file = disk.create(dir / "host-stderr.log", kPrivateFile);
  if (!file) return file.error();
  log.log_ = std::move(*file);
  if (redactor && redactor->active()) {
    auto held = disk.create_unnamed(dir, dir / "host-stderr.log.held", kPrivateFile);
    if (!held) return held.error();
    if ((*held)->descriptor() < 0)
      return Error::unreadable((*held)->path().string(), "cannot hold the host's stderr: no descriptor to read it back");
    log.held_ = std::move(*held);
    log.redactor_ = redactor;
  }
  return log;
}

void StderrLog::write(std::string_view bytes) {
  if (failure_) return;
  OutFile& to = held_ ? *held_ : *log_;
  if (auto ok = to.write(bytes); !ok) failure_ = ok.error();
}

void StderrLog::finish() {
  if (held_ && !failure_) scrub_into_log();
  held_.reset();
  if (failure_) return;
  if (auto ok = log_->sync(); !ok) failure_ = ok.error();
  else if (auto closed = log_->close(); !closed) failure_ = closed.error();
}

// The held bytes, scrubbed, into host-stderr.log; a warning for each line (up to
// kLineWarnings, then a count) that still mentions a credential.
void StderrLog::scrub_into_log() {
  TextScrubber scrubber(redactor_->replaced_texts());
  std::size_t line = 1, flagged = 0;
  std::vector<std::size_t> named;
  std::string current;  // the line being written (its last kLineCheckBytes at most)
  bool current_flagged = false;
  auto check_current = [&] {
    if (!current_flagged && might_hold_credentials(current)) current_flagged = true;
  };
  auto end_line = [&] {
    check_current();
    if (current_flagged) {
      ++flagged;
      if (named.size() < kLineWarnings) named.push_back(line);
    }
    current.clear();
    current_flagged = false;
    ++line;
  };
  auto write_out = [&](std::string_view bytes) {
    if (failure_ || bytes.empty()) return;
    if (auto ok = log_->write(bytes); !ok) {
      failure_ = ok.error();
      return;
    }
    while (!bytes.empty()) {
      const std::size_t lf = bytes.find('\n');
      current.append(bytes.substr(0, lf));
      if (current.size() > kLineCheckBytes) {
        check_current();
        current.erase(0, current.size() - 16);  // a word cut here is still seen whole
      }
      if (lf == std::string_view::npos) break;
      end_line();
      bytes.remove_prefix(lf + 1);
    }
  };
  const int fd = held_->descriptor();
  std::string buffer(kPiece, '\0');
  for (std::uint64_t offset = 0; offset < held_->size() && !failure_;) {
    const ssize_t n = ::pread(fd, buffer.data(), buffer.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      failure_ = Error::unreadable(held_->path().string(), fmt::format("cannot read back: {}", std::strerror(errno)));
      break;
    }
    if (n == 0) break;
    offset += static_cast<std::uint64_t>(n);
    scrubber.feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)), write_out);
  }
  scrubber.end(write_out);
  if (!current.empty()) end_line();
  for (std::size_t at : named)
    redactor_->warn({at, Direction::server, "", "",
                     "host stderr line mentions a credential (token, secret, password, API key or account/) that no "
                     "--redact value covered: kept as the host wrote it",
                     "host-stderr.log"});
  if (flagged > named.size())
    redactor_->warn({0, Direction::server, "", "",
                     fmt::format("{} more host stderr lines mention a credential that no --redact value covered",
                                 flagged - named.size()),
                     "host-stderr.log"});
}

}  // namespace msptk::recorder
