#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/body_scan.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/transcript/writer.hpp"

#include <boost/json/serialize.hpp>

#include <fmt/format.h>

#include <bit>
#include <cstring>

namespace msptk {

namespace json = boost::json;

Result<TranscriptReader> TranscriptReader::open(const std::filesystem::path& path, std::size_t max_line_bytes) {
  auto source = LineSource::open(path, max_line_bytes);
  if (!source) return source.error();
  return TranscriptReader(std::move(*source), max_line_bytes);
}

Result<LineSource> TranscriptReader::rewound_source() && {
  if (auto done = source_.rewind(); !done) return done.error();
  return std::move(source_);
}

Result<void> TranscriptReader::seek(std::uint64_t offset, std::size_t line) {
  if (auto done = source_.seek(offset); !done) return done.error();
  line_no_ = line - 1;
  text_ = {};
  facts_ = LineFacts{};
  done_ = undecoded_ = false;
  pending_.reset();
  return {};
}

bool TranscriptReader::next_is(std::string_view text, const LineFacts& facts) {
  if (done_ || pending_) return false;
  undecoded_ = false;
  text_ = {};  // reading on ends the last line's view
  pending_ = source_.next();
  if (!*pending_ || !**pending_) return false;  // the end or a read error: next() says so
  const LineSource::Line& got = ***pending_;
  if (got.oversized || got.text != text) return false;
  pending_.reset();
  ++line_no_;
  offset_ = got.offset;
  size_ = got.text.size();
  text_ = got.text;
  facts_ = facts;
  facts_.lf_terminated = got.lf_terminated;
  return true;
}

std::optional<Result<Frame>> TranscriptReader::next_undecoded() {
  decode_ = false;
  auto item = next();
  decode_ = true;
  return item;
}

void TranscriptReader::decode(Frame& frame) {
  if (!undecoded_) return;
  undecoded_ = false;
  std::string_view text = text_;
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  // The line was checked canonical when it was read, so it decodes.
  if (std::optional<Frame> full = parse_canonical_line(text, line_no_, spare_)) frame.raw = std::move(full->raw);
}

std::optional<Result<Frame>> TranscriptReader::next() {
  undecoded_ = false;
  if (done_) return std::nullopt;
  std::optional<Result<LineSource::Line>> item;
  if (pending_) {
    item = std::move(*pending_);
    pending_.reset();
  } else {
    item = source_.next();
  }
  if (!item) {
    done_ = true;
    return std::nullopt;
  }
  if (!*item) {
    done_ = true;
    return Result<Frame>(Error::unreadable(file(), fmt::format("read error after line {}", line_no_)));
  }
  const LineSource::Line& got = **item;
  ++line_no_;
  if (got.oversized) {
    offset_ = got.offset;
    size_ = 0;
    facts_ = LineFacts{};
    facts_.lf_terminated = got.lf_terminated;
    const std::size_t cap = max_line_bytes_;
    Error error = Error::unreadable(
        file(), got.length > cap
                    ? fmt::format("line is {} bytes, more than msptk holds in memory ({} bytes; MSPTK_MAX_LINE_BYTES "
                                  "raises the cap); the line was skipped",
                                  got.length, cap)
                    : fmt::format("line is {} bytes, more than the memory msptk may use can hold; the line was skipped",
                                  got.length));
    error.line = line_no_;
    return Result<Frame>(std::move(error));
  }
  offset_ = got.offset;
  size_ = got.text.size();
  text_ = got.text;
  facts_ = LineFacts{};
  facts_.lf_terminated = got.lf_terminated;
  std::string_view text = got.text;
  if (!text.empty() && text.back() == '\r') {
    facts_.crlf = true;
    text.remove_suffix(1);
  }
  if (!decode_) {
    if (std::optional<Frame> fast = parse_canonical_line(text, line_no_, false)) {
      facts_.canonical = !facts_.crlf;
      undecoded_ = true;
      return Result<Frame>(std::move(*fast));
    }
  } else if (std::optional<Frame> fast = parse_canonical_line(text, line_no_, spare_)) {
    facts_.canonical = !facts_.crlf;
    return Result<Frame>(std::move(*fast));
  }
  Result<Frame> frame = parse_transcript_line_general(text, file(), line_no_);
  if (text.find_first_not_of(" \t\r") == std::string_view::npos) facts_.blank = true;
  if (frame && !facts_.crlf) {
    facts_.canonical = (got.text == canonical_line(frame->dir, frame->wire_bytes()));
  }
  return frame;
}

namespace {

std::optional<Frame> canonical_frame(std::string_view text, std::size_t line, bool decode, std::string* storage) {
  const std::optional<Direction> dir = canonical_head_dir(text);
  if (!dir) return std::nullopt;
  Frame frame;
  frame.dir = *dir;
  if (!decode) {
    const std::size_t close = scan_canonical_body(text, kCanonicalHeadSize, nullptr, nullptr);
    if (close == std::string_view::npos || text.substr(close + 1) != "}") return std::nullopt;
    frame.line = line;
    return frame;
  }
  // Decoded in place: the body never decodes longer than it is written.
  std::string raw = storage ? std::move(*storage) : std::string();
  raw.resize(text.size() - kCanonicalHeadSize);
  std::size_t written = 0;
  const std::size_t close = scan_canonical_body(text, kCanonicalHeadSize, raw.data(), &written);
  if (close == std::string_view::npos || text.substr(close + 1) != "}") {
    if (storage) *storage = std::move(raw);
    return std::nullopt;
  }
  raw.resize(written);
  frame.raw = std::move(raw);
  frame.line = line;
  return frame;
}

}  // namespace

std::optional<Frame> parse_canonical_line(std::string_view text, std::size_t line, bool decode) {
  return canonical_frame(text, line, decode, nullptr);
}

std::optional<Frame> parse_canonical_line(std::string_view text, std::size_t line, std::string& storage) {
  return canonical_frame(text, line, true, &storage);
}

Result<Frame> parse_transcript_line(std::string_view text, const std::string& file, std::size_t line) {
  if (std::optional<Frame> fast = parse_canonical_line(text, line)) return std::move(*fast);
  return parse_transcript_line_general(text, file, line);
}

Result<Frame> parse_transcript_line_general(std::string_view text, const std::string& file, std::size_t line) {
  if (text.find_first_not_of(" \t\r") == std::string_view::npos) {
    return Error::malformed(file, line, "file.blank-line", "blank line (every line must hold one frame)");
  }
  if (!is_valid_utf8(text)) {
    return Error::malformed(file, line, "file.utf8", "line is not valid UTF-8");
  }
  auto line_value = parse_json(text);
  if (!line_value) {
    const JsonError& e = line_value.error();
    if (e.kind == JsonErrorKind::duplicate_member) return Error::malformed(file, line, "file.members", e.about("the line"));
    if (e.kind == JsonErrorKind::not_json) {
      return Error::malformed(file, line, "file.json", "line is not a JSON value: " + e.message);
    }
    return Error::malformed(file, line, "file.json", e.about("the line"));
  }
  json::value& value = *line_value;
  json::object* obj = value.if_object();
  if (!obj) return Error::malformed(file, line, "file.json", "line is not a JSON object");

  Frame frame;
  frame.line = line;
  bool have_dir = false, have_raw = false;
  for (auto& member : *obj) {
    const std::string_view key = member.key();
    if (key == "dir") {
      const json::string* dir = is_json_string(member.value()) ? member.value().if_string() : nullptr;
      std::optional<Direction> parsed = dir ? parse_direction(*dir) : std::nullopt;
      if (!parsed) {
        return Error::malformed(file, line, "file.dir",
                                "\"dir\" must be \"client\" or \"server\", got " + serialize_json(member.value()));
      }
      frame.dir = *parsed;
      have_dir = true;
    } else if (key == "raw") {
      json::string* raw = is_json_string(member.value()) ? member.value().if_string() : nullptr;
      if (!raw) return Error::malformed(file, line, "file.members", "\"raw\" must be a string");
      frame.raw.assign(raw->data(), raw->size());
      have_raw = true;
    } else if (key == "rawBase64") {
      const json::string* b64 = is_json_string(member.value()) ? member.value().if_string() : nullptr;
      std::optional<std::string> bytes = b64 ? base64_decode(*b64) : std::nullopt;
      if (!bytes) {
        return Error::malformed(file, line, "file.members", "\"rawBase64\" must be a base64 string");
      }
      frame.exact_bytes = std::move(*bytes);
    } else {
      return Error::malformed(file, line, "file.members",
                              fmt::format("unexpected member \"{}\" (a line holds exactly \"dir\" and \"raw\")", key));
    }
  }
  if (!have_dir || !have_raw) {
    return Error::malformed(file, line, "file.members",
                            fmt::format("missing member \"{}\"", have_dir ? "raw" : "dir"));
  }
  return frame;
}

Result<std::vector<Frame>> read_transcript(const std::filesystem::path& path) {
  auto reader = TranscriptReader::open(path);
  if (!reader) return reader.error();
  std::vector<Frame> frames;
  while (auto item = reader->next()) {
    if (!*item) return item->error();
    frames.push_back(std::move(**item));
  }
  return frames;
}

}  // namespace msptk
