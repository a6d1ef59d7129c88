#include "msptk/show/render.hpp"

#include "msptk/normalizer/pretty.hpp"
#include "msptk/show/summary.hpp"
#include "msptk/transcript/display.hpp"
#include "msptk/transcript/json_parse.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace msptk::show {

namespace {

std::string_view direction_text(const std::optional<Direction>& dir) {
  if (!dir) return "?            ";
  return *dir == Direction::client ? "client → host" : "host → client";
}

std::string pad(std::string text, std::size_t columns) {
  const std::size_t have = columns_of(text);
  if (have < columns) text.append(columns - have, ' ');
  return text;
}

std::string seconds(std::int64_t micros) { return fmt::format("{:.3f}s", static_cast<double>(micros) / 1e6); }
std::string millis(std::int64_t micros) { return fmt::format("{:.1f}ms", static_cast<double>(micros) / 1e3); }

const char* color_of(const Row& row) {
  if (row.kind == RowKind::error) return "\033[31m";  // red
  if (row.unmatched) return "\033[35m";               // magenta
  if (row.unanswered) return "\033[33m";              // yellow
  if (row.kind == RowKind::invalid) return "\033[31m";
  if (row.count > 1) return "\033[2m";                // dim: a folded run
  return nullptr;
}

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

void TextRenderer::begin(const std::string&, const std::vector<std::string>& legs) { legs_ = legs; }

void TextRenderer::row(const Row& row) {
  std::string line = fmt::format("{:>5}  {}  {} {}", row.line, direction_text(row.dir), pad(std::string(to_string(row.kind)), 14),
                                 row.under_request ? "↳ " : "  ");
  std::string method = display_text(row.method.empty() && (row.kind == RowKind::response || row.kind == RowKind::answer ||
                                                            row.kind == RowKind::error)
                                         ? "?"
                                         : row.method);
  if (row.count > 1) method += fmt::format(" ×{}", row.count);
  line += pad(std::move(method), 24);
  line += ' ';
  if (row.count > 1) line += pad(fmt::format("lines {}–{}", row.line, row.last_line), 8);
  else line += pad(row.id.empty() ? std::string() : "id " + display_text(row.id), 8);
  if (row.t_micros) line += fmt::format(" {:>9}", seconds(*row.t_micros));
  if (row.latency_micros) line += fmt::format(" +{}", millis(*row.latency_micros));
  line += "  ";
  if (row.unanswered) line += "[unanswered] ";
  if (row.unmatched) line += "[answers no request] ";
  if (row.raw_base64) line += "[rawBase64] ";
  std::string summary = display_text(row.summary);
  if (options_.width) {
    const std::size_t used = columns_of(line);
    summary = cut_to_columns(summary, used + 10 < options_.width ? options_.width - used : 10);
  }
  line += summary;
  while (!line.empty() && line.back() == ' ') line.pop_back();
  const char* color = options_.color ? color_of(row) : nullptr;
  if (color) out_ << color << line << "\033[0m\n";
  else out_ << line << '\n';
}

std::string totals_line(const Totals& totals) {
  static constexpr std::pair<RowKind, std::pair<std::string_view, std::string_view>> kNames[] = {
      {RowKind::request, {"request", "requests"}},
      {RowKind::response, {"response", "responses"}},
      {RowKind::notification, {"notification", "notifications"}},
      {RowKind::server_request, {"server request", "server requests"}},
      {RowKind::answer, {"answer", "answers"}},
      {RowKind::error, {"error", "errors"}},
      {RowKind::invalid, {"invalid", "invalid"}},
  };
  std::string parts;
  for (const auto& [kind, names] : kNames) {
    if (!totals.count(kind)) continue;
    parts += (parts.empty() ? "" : ", ") + plural(totals.count(kind), names.first, names.second);
  }
  std::string line = plural(totals.frames, "frame", "frames");
  if (!parts.empty()) line += ": " + parts;
  if (totals.unanswered.empty()) {
    line += "; no request left unanswered";
  } else {
    line += "; unanswered: ";
    for (std::size_t i = 0; i < totals.unanswered.size(); ++i) {
      const Unanswered& u = totals.unanswered[i];
      if (i == 8) {
        line += fmt::format(", … ({} more)", totals.unanswered.size() - 8);
        break;
      }
      line += fmt::format("{}{} id {} (line {})", i ? ", " : "", display_text(u.method), display_text(u.id), u.line);
    }
  }
  return line;
}

void TextRenderer::end(const Totals& totals) {
  out_ << totals_line(totals) << '\n';
  if (!legs_.empty()) {
    out_ << "legs files beside it (msptk show FOLDER/FILE shows one):";
    for (const std::string& l : legs_) out_ << ' ' << display_text(std::filesystem::path(l).filename().string());
    out_ << '\n';
  }
}

void render_frame_text(std::ostream& out, const FrameDetail& detail) {
  const Row& row = detail.row;
  std::string header = fmt::format("line {} · {} · {}", row.line, row.dir ? direction_text(row.dir) : "not a frame",
                                   to_string(row.kind));
  if (!row.method.empty()) header += " " + display_text(row.method);
  if (!row.id.empty()) header += " · id " + display_text(row.id);
  if (row.request_line) header += fmt::format(" · answers line {}", row.request_line);
  if (row.unanswered) header += " · unanswered";
  if (row.unmatched) header += " · answers no request";
  if (row.t_micros) header += " · at " + seconds(*row.t_micros);
  if (row.latency_micros) header += " · latency " + millis(*row.latency_micros);
  out << header << '\n';
  if (row.kind == RowKind::invalid && !detail.frame.line) {
    out << display_text(row.summary) << '\n';
    return;
  }
  if (row.raw_base64)
    out << "rawBase64: the wire bytes are not UTF-8; they are shown as sent, a byte that is not UTF-8 as \\xNN\n";
  if (row.kind == RowKind::invalid) out << display_text(row.summary) << '\n';
  std::string_view bytes = detail.frame.wire_bytes();
  if (!bytes.empty() && bytes.back() == '\r') bytes.remove_suffix(1);
  // Streamed a line at a time (memory: one line), within msptk's nesting limit; a frame that
  // cannot be laid out or is deeper is shown as sent, in one line (linear in its size).
  std::string indent;
  const bool laid = for_each_pretty_line(bytes, ParseLimits{}.max_depth, [&](std::size_t depth, std::string_view text) {
    indent.assign(2 * depth, ' ');
    out << indent << display_text(text) << '\n';
  });
  if (!laid) out << display_text(bytes) << '\n';
}

}  // namespace msptk::show
