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

}  // namespace

Result<bool> write_spilled_line(Direction dir, const PendingFrame& frame, OutFile& out) {
  const std::uint64_t start = out.size();
  LineBuffer escaped;
  // raw, escaped piece by piece, never splitting a sequence: as text (and checked as UTF-8 on
  // the way, stopping at the first piece that is not), or lossy.
  auto write_raw = [&](bool lossy, bool& valid) -> Result<void> {
    if (auto ok = out.write(fmt::format(R"({{"dir":"{}","raw":")", to_string(dir))); !ok) return ok;
    std::string carry;
    auto write_text = [&](std::string_view text) -> Result<void> {
      escaped.clear();
      if (lossy) {
        append_escaped(escaped, lossy_utf8(text));
      } else if (!append_escaped_utf8(escaped, text)) {
        valid = false;
        return {};
      }
      return out.write(escaped.view());
    };
    auto text_piece = [&](std::string_view piece) -> Result<void> {
      if (!valid) return {};
      std::string text = carry + std::string(piece);
      const std::size_t cut = utf8_cut(text);
      carry = text.substr(cut);
      text.resize(cut);
      return write_text(text);
    };
    if (auto ok = frame.read_back(frame.size(), kPiece, text_piece); !ok) return ok;
    if (!carry.empty() && valid) return write_text(carry);  // a sequence cut short: never UTF-8
    return {};
  };
  bool valid = true;
  if (auto ok = write_raw(false, valid); !ok) return ok.error();
  if (!valid) {
    // Not UTF-8: the line again, in its other form (a lossy raw beside rawBase64).
    if (auto ok = out.truncate(start); !ok) return ok.error();
    bool unused = true;
    if (auto ok = write_raw(true, unused); !ok) return ok.error();
    if (auto ok = out.write(R"(","rawBase64":")"); !ok) return ok.error();
    auto base64_piece = [&](std::string_view piece) { return out.write(base64_encode(piece)); };
    if (auto ok = frame.read_back(frame.size(), kPiece, base64_piece); !ok) return ok.error();
  }
  if (auto ok = out.write("\"}\n"); !ok) return ok.error();
  return valid;
}

}  // namespace msptk::recorder
