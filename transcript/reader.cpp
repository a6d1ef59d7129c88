#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/transcript/writer.hpp"

#include <boost/json/serialize.hpp>

#include <fmt/format.h>

#include <cstring>

namespace msptk {

namespace json = boost::json;

TranscriptReader::TranscriptReader(std::string file, std::unique_ptr<std::ifstream> in)
    : file_(std::move(file)), in_(std::move(in)) {}

Result<TranscriptReader> TranscriptReader::open(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Error::unreadable(path.string(), "is a folder, not a transcript file");
  }
  auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*in) {
    return Error::unreadable(path.string(), fmt::format("cannot open: {}", std::strerror(errno)));
  }
  return TranscriptReader(path.string(), std::move(in));
}

std::optional<Result<Frame>> TranscriptReader::next() {
  if (done_) return std::nullopt;
  if (!std::getline(*in_, buffer_)) {
    done_ = true;
    if (in_->bad()) {
      return Result<Frame>(Error::unreadable(file_, fmt::format("read error after line {}", line_no_)));
    }
    return std::nullopt;
  }
  ++line_no_;
  facts_ = LineFacts{};
  facts_.lf_terminated = !in_->eof();
  std::string_view text = buffer_;
  if (!text.empty() && text.back() == '\r') {
    facts_.crlf = true;
    text.remove_suffix(1);
  }
  Result<Frame> frame = parse_transcript_line(text, file_, line_no_);
  if (text.find_first_not_of(" \t\r") == std::string_view::npos) facts_.blank = true;
  if (frame && !facts_.crlf) {
    facts_.canonical = (buffer_ == canonical_line(frame->dir, frame->wire_bytes()));
  }
  return frame;
}

Result<Frame> parse_transcript_line(std::string_view text, const std::string& file, std::size_t line) {
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
