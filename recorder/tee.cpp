#include "msptk/recorder/tee.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/process/fd_io.hpp"
#include "msptk/transcript/writer.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace msptk::recorder {

namespace json = boost::json;

namespace {

// Handshake frames are small; never parse a big frame just to look for them.
constexpr std::size_t kHandshakeParseLimit = 1 << 20;

std::optional<json::value> parse_handshake(std::string_view bytes) {
  if (bytes.size() > kHandshakeParseLimit) return std::nullopt;
  if (!bytes.empty() && bytes.back() == '\r') bytes.remove_suffix(1);
  auto value = parse_json(bytes);
  if (!value) return std::nullopt;
  return std::move(*value);
}

}  // namespace

Result<std::string> read_spilled(const PendingFrame& frame) {
  std::string bytes;
  bytes.reserve(frame.size());
  auto ok = frame.read_back(frame.size(), 256 * 1024, [&](std::string_view piece) -> Result<void> {
    bytes.append(piece);
    return {};
  });
  if (!ok) return ok.error();
  return bytes;
}

Result<bool> FrameSink::append_frame(Direction dir, std::string_view bytes) {
  if (auto ok = append(dir, bytes); !ok) return ok.error();
  return is_valid_utf8(bytes);
}

Result<bool> FrameSink::append_spilled(Direction dir, const PendingFrame& frame) {
  auto bytes = read_spilled(frame);
  if (!bytes) return bytes.error();
  return append_frame(dir, *bytes);
}

namespace {

std::filesystem::path spill_file(const Spill& spill, Direction dir) {
  return spill.disk ? spill.dir / fmt::format("{}.partial", to_string(dir)) : std::filesystem::path();
}

}  // namespace

Tee::Tee(FrameSink& sink, std::uint64_t frame_limit_bytes, const Spill& spill)
    : sink_(sink),
      limit_(frame_limit_bytes),
      spill_(spill),
      client_pending_(spill.disk, spill_file(spill, Direction::client), spill.memory_limit),
      server_pending_(spill.disk, spill_file(spill, Direction::server), spill.memory_limit) {}

void Tee::redact_with(Redactor* redactor) {
  redactor_ = redactor;
  const bool unnamed = redactor_ && redactor_->active();
  client_pending_.spill_unnamed(unnamed);
  server_pending_.spill_unnamed(unnamed);
}

void Tee::feed(Direction dir, std::string_view chunk) {
  DirectionStats& stats = dir == Direction::client ? client_ : server_;
  PendingFrame& frame = pending(dir);
  stats.bytes += chunk.size();
  while (!chunk.empty()) {
    const std::size_t lf = chunk.find('\n');
    const std::string_view part = chunk.substr(0, lf);
    if (lf != std::string_view::npos && frame.empty()) {
      on_frame(dir, part);  // fast path: a whole frame inside this chunk
    } else {
      if (auto ok = frame.append(part); !ok && !failure_) failure_ = ok.error();
      if (lf != std::string_view::npos) on_pending_frame(dir, frame);
    }
    if (lf == std::string_view::npos) break;
    chunk.remove_prefix(lf + 1);
  }
  if (failure_) return;
  if (auto written = sink_.end_of_chunk(); !written) failure_ = written.error();
}

void Tee::on_pending_frame(Direction dir, PendingFrame& frame) {
  if (!frame.spilled()) {
    const std::string bytes = frame.take_bytes();
    on_frame(dir, bytes);
    return;
  }
  DirectionStats& stats = dir == Direction::client ? client_ : server_;
  if (!failure_) {
    if (auto ok = frame.close_spill(); !ok) failure_ = ok.error();
  }
  if (redactor_ && redactor_->active() && !failure_) {
    // Redaction needs the whole frame: read it back (--redact is the user's choice). Without
    // --redact paths a frame this big is not scanned for credentials.
    auto bytes = read_spilled(frame);
    frame.reset();
    if (!bytes) {
      ++stats.frames;
      failure_ = bytes.error();
      return;
    }
    on_frame(dir, *bytes);
    return;
  }
  ++stats.frames;
  bool valid_utf8 = true;
  if (!failure_) {
    auto appended = sink_.append_spilled(dir, frame);
    if (appended) valid_utf8 = *appended;
    else failure_ = appended.error();
  }
  if (!failure_) {
    ++lines_;
    flag_frame(dir, frame.size(), frame.last_byte(), valid_utf8);
  }
  frame.reset();
}

void Tee::close(Direction dir) {
  DirectionStats& stats = dir == Direction::client ? client_ : server_;
  if (stats.closed) return;
  stats.closed = true;
  PendingFrame& frame = pending(dir);
  Unterminated& tail = stats.tail;
  tail.bytes = frame.size();
  if (frame.empty()) return;
  if (redactor_ && redactor_->active()) {
    keep_redacted_tail(dir, frame, stats);
    return;
  }
  tail.sha256 = frame.sha256();
  tail.head = frame.head();
  tail.tail = frame.tail();
  if (!spill_.disk) {
    stats.unterminated = std::string(frame.bytes());
    frame.reset();
    return;
  }
  // Keep the tail in its side file: the spill file renamed, or the bytes held in memory.
  tail.file = fmt::format("{}-unterminated.bin", to_string(dir));
  const std::filesystem::path side = spill_.dir / tail.file;
  Result<void> kept;
  if (frame.spilled()) {
    kept = frame.close_spill(/*sync=*/true);
    if (kept) kept = spill_.disk->rename(frame.spill_path(), side);
    if (kept) kept = spill_.disk->sync_dir(spill_.dir);
  } else {
    kept = spill_.disk->replace(side, frame.bytes(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  }
  if (!kept) {
    tail.file.clear();
    if (!failure_) failure_ = kept.error();
  }
  frame.reset(/*keep_file=*/true);
}

// Under --redact: the tail as the Redactor lets it be kept, or only its size and SHA-256.
void Tee::keep_redacted_tail(Direction dir, PendingFrame& frame, DirectionStats& stats) {
  Unterminated& tail = stats.tail;
  auto withhold = [&] {
    tail.sha256 = frame.sha256();
    tail.withheld = true;
    frame.reset();
  };
  // Only a JSON object can be redacted: bytes that do not even start like one are withheld
  // without being read back.
  const std::string head = frame.head();
  const std::size_t first = head.find_first_not_of(" \t\r");
  if (first == std::string::npos || head[first] != '{') {
    redactor_->withhold_unterminated(dir, frame.size());
    return withhold();
  }
  std::string bytes;
  if (frame.spilled()) {
    if (!failure_) {
      if (auto ok = frame.close_spill(); !ok) failure_ = ok.error();
    }
    auto read = read_spilled(frame);
    if (!read || read->size() != frame.size()) {
      if (!read && !failure_) failure_ = read.error();
      redactor_->withhold_unterminated(dir, frame.size());
      return withhold();
    }
    bytes = std::move(*read);
  } else {
    bytes = std::string(frame.bytes());
  }
  std::optional<std::string> kept = redactor_->redact_unterminated(dir, bytes);
  if (!kept) return withhold();
  frame.reset();
  tail.bytes = kept->size();
  tail.sha256 = sha256_hex(*kept);
  tail.head = kept->substr(0, kEdgeBytes);
  tail.tail = kept->size() > kEdgeBytes ? kept->substr(kept->size() - kEdgeBytes) : *kept;
  if (!spill_.disk) {
    stats.unterminated = std::move(*kept);
    return;
  }
  tail.file = fmt::format("{}-unterminated.bin", to_string(dir));
  auto written = spill_.disk->replace(spill_.dir / tail.file, *kept,
                                      std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  if (!written) {
    tail.file.clear();
    if (!failure_) failure_ = written.error();
  }
}

void Tee::on_frame(Direction dir, std::string_view bytes) {
  DirectionStats& stats = dir == Direction::client ? client_ : server_;
  if (bytes.empty() || bytes == "\r") {
    ++stats.empty_lines;
    return;
  }
  ++stats.frames;
  if (failure_) return;
  std::optional<std::string> redacted;
  if (redactor_) redacted = redactor_->redact(dir, bytes, lines_ + 1);
  bool valid_utf8 = true;
  if (redacted) {
    if (auto appended = sink_.append(dir, *redacted); !appended) {
      failure_ = appended.error();
      return;
    }
    valid_utf8 = is_valid_utf8(bytes);
  } else {
    auto appended = sink_.append_frame(dir, bytes);  // learns the UTF-8 check on the way
    if (!appended) {
      failure_ = appended.error();
      return;
    }
    valid_utf8 = *appended;
  }
  ++lines_;
  flag_frame(dir, bytes.size(), bytes.back(), valid_utf8);
  watch_handshake(dir, bytes);
}

void Tee::flag_frame(Direction dir, std::uint64_t size, char last, bool valid_utf8) {
  auto flag = [&](const char* reason) { flagged_.push_back({lines_, dir, reason, size}); };
  if (size > limit_) flag("oversized");
  if (dir == Direction::server && last == '\r') flag("serverCR");
  if (!valid_utf8) flag("invalidUtf8");
}

void Tee::watch_handshake(Direction dir, std::string_view bytes) {
  if (handshake_done_) return;
  if (dir == Direction::client) {
    if (bytes.find("\"initialize\"") == std::string_view::npos) return;
    auto value = parse_handshake(bytes);
    if (!value) return;
    Envelope env = classify(*value);
    if (env.kind == FrameKind::request && env.method == "initialize") initialize_id_ = id_key(*env.id);
    return;
  }
  if (!initialize_id_) return;
  auto value = parse_handshake(bytes);
  if (!value) return;
  Envelope env = classify(*value);
  if (env.kind != FrameKind::response || !env.id || id_key(*env.id) != *initialize_id_) return;
  handshake_done_ = true;
  if (env.is_error) return;
  const json::value* schema = value->as_object().at("result").is_object()
                                  ? value->as_object().at("result").as_object().if_contains("schema")
                                  : nullptr;
  if (!schema || !schema->is_object()) return;
  if (const json::value* fp = schema->as_object().if_contains("fingerprint"); fp && is_json_string(*fp))
    fingerprint_ = std::string(fp->get_string());
}

}  // namespace msptk::recorder
