#include "msptk/wirelog/render.hpp"

#include "msptk/transcript/display.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <fmt/format.h>

#include <ostream>

namespace msptk::wirelog {

namespace json = boost::json;

namespace {

std::string cut_text(const ChunkRow& row) {
  if (row.open_bytes == 0) return "";
  std::string text = fmt::format("frame open ({} bytes so far)", row.open_bytes);
  if (row.splits_code_point) text += ", code point split";
  return text;
}

json::object totals_json(const DirectionTotals& t) {
  return json::object{{"chunks", t.chunks},         {"bytes", t.bytes},           {"frames", t.frames},
                      {"cutFrames", t.cut_frames},  {"emptyLines", t.empty_lines}, {"unterminated", t.unterminated}};
}

std::string totals_text(std::string_view name, const DirectionTotals& t) {
  std::string text = fmt::format("{}: {} chunk{}, {} bytes, {} frame{} ({} cut across chunks)", name, t.chunks,
                                 t.chunks == 1 ? "" : "s", t.bytes, t.frames, t.frames == 1 ? "" : "s", t.cut_frames);
  if (t.empty_lines) text += fmt::format(", {} empty line{}", t.empty_lines, t.empty_lines == 1 ? "" : "s");
  if (t.unterminated) text += fmt::format(", {} bytes after the last LF", t.unterminated);
  return text;
}

}  // namespace

void render_table(std::ostream& out, const std::string& file, const WireAnalysis& analysis) {
  out << fmt::format("{:>6}  {:<6}  {:>12}  {:>10}  {:>8}  {:>6}  {}\n", "seq", "dir", "tMicros", "gapMicros", "bytes",
                     "frames", "cut");
  for (const ChunkRow& row : analysis.rows)
    out << fmt::format("{:>6}  {:<6}  {:>12}  {:>10}  {:>8}  {:>6}  {}\n", row.seq, to_string(row.dir), row.t_micros,
                       row.gap_micros, row.bytes, row.frames_completed, cut_text(row));
  out << display_text(file) << ": " << analysis.rows.size() << " chunk" << (analysis.rows.size() == 1 ? "" : "s") << ", "
      << analysis.frames.size() << " frame" << (analysis.frames.size() == 1 ? "" : "s") << " rebuilt";
  if (analysis.largest_gap_before_seq)
    out << fmt::format(", largest gap {} us (before chunk {})", analysis.largest_gap_micros,
                       analysis.largest_gap_before_seq);
  out << "\n  " << totals_text("client", analysis.client) << "\n  " << totals_text("server", analysis.server) << "\n";
}

void render_json(std::ostream& out, const std::string& file, const WireAnalysis& analysis, const RebuildCheck* check,
                 const std::string& transcript) {
  json::array chunks;
  for (const ChunkRow& row : analysis.rows)
    chunks.emplace_back(json::object{{"seq", row.seq},
                                     {"dir", to_string(row.dir)},
                                     {"tMicros", row.t_micros},
                                     {"gapMicros", row.gap_micros},
                                     {"bytes", row.bytes},
                                     {"framesCompleted", row.frames_completed},
                                     {"emptyLines", row.empty_lines},
                                     {"openBytes", row.open_bytes},
                                     {"splitsCodePoint", row.splits_code_point}});
  json::value check_json = nullptr;
  if (check) {
    json::array mismatches;
    for (const FrameMismatch& m : check->mismatches)
      mismatches.emplace_back(json::object{{"line", m.line}, {"frame", m.frame}, {"message", m.message}});
    check_json = json::object{{"transcript", transcript},
                              {"compared", check->compared},
                              {"same", check->same()},
                              {"mismatches", std::move(mismatches)},
                              {"more", check->more}};
  }
  json::object doc{{"file", file},
                   {"chunks", std::move(chunks)},
                   {"frames", analysis.frames.size()},
                   {"client", totals_json(analysis.client)},
                   {"server", totals_json(analysis.server)},
                   {"largestGap", json::object{{"micros", analysis.largest_gap_micros},
                                               {"beforeSeq", analysis.largest_gap_before_seq}}},
                   {"check", std::move(check_json)}};
  out << json::serialize(doc) << "\n";
}

void render_check(std::ostream& out, const std::string& file, const RebuildCheck& check, const std::string& transcript) {
  if (check.same()) {
    out << fmt::format("{}: {} frame{} rebuilt, identical to {}\n", display_text(file), check.compared,
                       check.compared == 1 ? "" : "s", display_text(transcript));
    return;
  }
  for (const FrameMismatch& m : check.mismatches) {
    if (m.line) out << fmt::format("{}:{}: {}\n", display_text(transcript), m.line, display_text(m.message));
    else out << fmt::format("{}: {}\n", display_text(file), display_text(m.message));
  }
  if (check.more) out << fmt::format("... and {} more mismatch{}\n", check.more, check.more == 1 ? "" : "es");
  out << fmt::format("{}: the rebuilt frames differ from {}\n", display_text(file), display_text(transcript));
}

}  // namespace msptk::wirelog
