#include "msptk/differ/render.hpp"
#include "render_parts.hpp"

#include "msptk/transcript/display.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace msptk {

namespace {

struct Painter {
  bool color;
  std::string paint(std::string_view code, std::string_view text) const {
    return color ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : std::string(text);
  }
  std::string bold(std::string_view t) const { return paint("1", t); }
  std::string red(std::string_view t) const { return paint("31", t); }
  std::string green(std::string_view t) const { return paint("32", t); }
  std::string yellow(std::string_view t) const { return paint("33", t); }
  std::string dim(std::string_view t) const { return paint("2", t); }
};

std::string cut(const std::string& text, std::size_t max) {
  if (max == 0 || text.size() <= max) return text;
  std::size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;  // keep UTF-8 whole
  return text.substr(0, n) + "…";
}

std::string where(const std::string& file, std::size_t line) {
  return line == 0 ? std::string("(none)") : fmt::format("{}:{}", display_text(file), line);
}

// Everything below quotes input (file names, methods, member names, values): display_text.
std::string shown(std::string_view text) { return display_text(text); }

void render_entry(std::ostream& out, const DiffResult& r, const DiffEntry& e, const TextStyle& style,
                  const Painter& p) {
  std::string label(to_string(e.kind));
  std::string painted = e.kind == EntryKind::moved || e.kind == EntryKind::extra ? p.yellow(label) : p.red(label);
  out << painted << " " << p.bold(shown(e.signature)) << "\n";
  out << "  expected " << where(r.expected_file, e.expected_line) << "\n";
  out << "  actual   " << where(r.actual_file, e.actual_line);
  if (e.kind == EntryKind::moved) out << " (at another position)";
  out << "\n";
  if (!e.actual_signature.empty()) out << "  actual frame: " << shown(e.actual_signature) << "\n";
  for (const PathDivergence& d : e.divergences) {
    const std::string path = d.path.empty() ? "(frame)" : shown(d.path);
    if (d.expected || d.actual) {
      const std::string ev = d.expected ? shown(cut(*d.expected, style.max_value_chars)) : "(absent)";
      const std::string av = d.actual ? shown(cut(*d.actual, style.max_value_chars)) : "(absent)";
      out << "  " << path << ": " << p.red(ev) << " → " << p.green(av) << "\n";
      if (!d.note.empty()) out << "    " << p.dim("note: " + shown(d.note)) << "\n";
    } else {
      out << "  " << path << ": " << shown(d.note) << "\n";
    }
  }
}

void render_masks(std::ostream& out, const DiffResult& r) {
  out << "masked paths (" << to_string(r.mode) << "): ";
  if (r.masks.empty()) {
    out << "none declared\n";
    return;
  }
  if (r.byte_identical) {
    out << "values not inspected, the frames are byte-identical\n";
    return;
  }
  bool first = true;
  for (const MaskUse& m : r.masks) {
    out << (first ? "" : ", ") << fmt::format("{} {} values ({} differed)", shown(m.path), m.covered, m.differed);
    first = false;
  }
  out << "\n";
}

}  // namespace

std::string summary_line(Verdict verdict, const DiffCounts& c) {
  return fmt::format("{}: {} frames ({} identical, {} equivalent, {} divergent, {} missing, {} extra, {} moved)",
                     to_string(verdict), c.frames(), c.identical, c.equivalent, c.divergent, c.missing, c.extra,
                     c.moved);
}

namespace render_parts {

bool several(const DiffReport& report) { return report.comparisons.size() > 1 || !report.unpaired.empty(); }

void text_head(std::ostream& out, const DiffReport& report, const DiffResult& r, const TextStyle& style) {
  const Painter p{style.color};
  if (several(report)) out << p.bold(fmt::format("== {} vs {}", shown(r.expected_file), shown(r.actual_file))) << "\n";
}

void text_entry(std::ostream& out, const DiffResult& r, const DiffEntry& e, const TextStyle& style) {
  if (e.kind == EntryKind::identical || e.kind == EntryKind::equivalent) return;
  render_entry(out, r, e, style, Painter{style.color});
  out << "\n";
}

void text_tail(std::ostream& out, const DiffReport& report, const DiffResult& r, const TextStyle& style) {
  const Painter p{style.color};
  render_masks(out, r);
  for (const PathDivergence& c : r.client_info)
    out << fmt::format("unified {}: {} → {}\n", c.path, shown(*c.expected), shown(*c.actual));
  for (const std::string& w : r.warnings) out << p.yellow("warning: ") << shown(w) << "\n";
  if (several(report)) out << summary_line(r.verdict, r.counts) << "\n\n";
}

void text_end(std::ostream& out, const DiffReport& report, const TextStyle& style) {
  const Painter p{style.color};
  for (const UnpairedFile& u : report.unpaired) {
    out << p.yellow("note: ") << "legs file " << shown(u.file) << " not compared: the "
        << (u.in_expected ? "actual" : "expected") << " scenario has no file of that name\n";
  }
  std::string last = summary_line(report.verdict(), report.total());
  const std::size_t colon = last.find(':');
  const std::string head = last.substr(0, colon);
  out << (report.verdict() == Verdict::divergent ? p.red(head) : p.green(head)) << last.substr(colon) << "\n";
}

}  // namespace render_parts

void render_text(std::ostream& out, const DiffReport& report, const TextStyle& style) {
  for (const DiffResult& r : report.comparisons) {
    render_parts::text_head(out, report, r, style);
    for (const DiffEntry& e : r.entries) render_parts::text_entry(out, r, e, style);
    render_parts::text_tail(out, report, r, style);
  }
  render_parts::text_end(out, report, style);
}

}  // namespace msptk
