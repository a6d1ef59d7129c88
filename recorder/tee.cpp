#include "msptk/recorder/tee.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/transcript/writer.hpp"


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

void Tee::feed(Direction dir, std::string_view chunk) {
  DirectionStats& stats = dir == Direction::client ? client_ : server_;
  LineFramer& framer = dir == Direction::client ? client_framer_ : server_framer_;
  stats.bytes += chunk.size();
  framer.feed(chunk, [&](const FramedLine& line) { on_frame(dir, line.bytes); });
  if (failure_) return;
  if (auto written = sink_.end_of_chunk(); !written) failure_ = written.error();
}

void Tee::close(Direction dir) {
  DirectionStats& stats = dir == Direction::client ? client_ : server_;
  if (stats.closed) return;
  stats.closed = true;
  stats.unterminated = (dir == Direction::client ? client_framer_ : server_framer_).pending();
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
  if (auto appended = sink_.append(dir, redacted ? std::string_view(*redacted) : bytes); !appended) {
    failure_ = appended.error();
    return;
  }
  ++lines_;
  auto flag = [&](const char* reason) { flagged_.push_back({lines_, dir, reason, bytes.size()}); };
  if (bytes.size() > limit_) flag("oversized");
  if (dir == Direction::server && bytes.back() == '\r') flag("serverCR");
  if (!is_valid_utf8(bytes)) flag("invalidUtf8");
  watch_handshake(dir, bytes);
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
