// write_spilled_line: a transcript line streamed from a spill file (pending_frame.hpp).
#include "msptk/recorder/pending_frame.hpp"

#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/line_encoder.hpp"
#include "msptk/transcript/writer.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <unistd.h>

namespace msptk::recorder {

namespace {

constexpr std::size_t kPiece = 3 * 64 * 1024;  // a multiple of 3: base64 pieces join cleanly

// Appends the JSON-escaped form of UTF-8 `text` to `out`, exactly as canonical_line writes it.
void append_escaped(LineBuffer& out, std::string_view text) {
  const std::size_t start = out.size();
  if (append_escaped_utf8(out, text)) return;
  out.truncate(start);  // not UTF-8 after all (never for the pieces below): the general path
  std::string escaped;
  append_json_escaped(escaped, text);
  out.append(escaped);
}

// Calls on_piece for each piece of the file, in order.
Result<void> each_piece(const std::filesystem::path& path, const std::function<Result<void>(std::string_view)>& on_piece) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error::unreadable(path.string(), fmt::format("cannot read back: {}", std::strerror(errno)));
  std::string buffer(kPiece, '\0');
  std::size_t filled = 0;
  Result<void> status;
  while (true) {
    const ssize_t n = ::read(fd, buffer.data() + filled, buffer.size() - filled);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      status = Error::unreadable(path.string(), fmt::format("cannot read back: {}", std::strerror(errno)));
      break;
    }
    filled += static_cast<std::size_t>(n);
    if (filled == buffer.size() || (n == 0 && filled > 0)) {
      if (auto ok = on_piece(std::string_view(buffer.data(), filled)); !ok) {
        status = ok;
        break;
      }
      filled = 0;
    }
    if (n == 0) break;
  }
  ::close(fd);
  return status;
}

}  // namespace

Result<void> write_spilled_line(Direction dir, const PendingFrame& frame, OutFile& out) {
  const bool valid = frame.valid_utf8();
  if (auto ok = out.write(fmt::format(R"({{"dir":"{}","raw":")", to_string(dir))); !ok) return ok;
  // raw: the text (lossy when not UTF-8), escaped piece by piece, never splitting a sequence.
  std::string carry;
  LineBuffer escaped;
  auto write_text = [&](std::string_view text) {
    escaped.clear();
    append_escaped(escaped, valid ? text : std::string_view(lossy_utf8(text)));
    return out.write(escaped.view());
  };
  auto text_piece = [&](std::string_view piece) -> Result<void> {
    std::string text = carry + std::string(piece);
    const std::size_t cut = utf8_cut(text);
    carry = text.substr(cut);
    text.resize(cut);
    return write_text(text);
  };
  if (auto ok = each_piece(frame.spill_path(), text_piece); !ok) return ok;
  if (!carry.empty()) {
    if (auto ok = write_text(carry); !ok) return ok;
  }
  if (!valid) {
    if (auto ok = out.write(R"(","rawBase64":")"); !ok) return ok;
    auto base64_piece = [&](std::string_view piece) { return out.write(base64_encode(piece)); };
    if (auto ok = each_piece(frame.spill_path(), base64_piece); !ok) return ok;
  }
  return out.write("\"}\n");
}

}  // namespace msptk::recorder
