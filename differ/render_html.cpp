#include "msptk/differ/html.hpp"

#include "msptk/differ/render.hpp"
#include "msptk/html/page.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace msptk {

namespace json = boost::json;

void KeptEntries::entry(const DiffResult&, DiffEntry&& entry) {
  if (kept_.empty()) kept_.emplace_back();
  if (kept_.back().size() < limit_) kept_.back().push_back(std::move(entry));
}

void KeptEntries::restore(DiffReport& report) {
  for (std::size_t i = 0; i < report.comparisons.size() && i < kept_.size(); ++i)
    report.comparisons[i].entries = std::move(kept_[i]);
}

std::string_view comparison_css() {
  return R"(
.cmp{margin:1em 0 2em}
.cmp h2 code{font-size:13px}
.entry{border:1px solid #ddd;border-left:4px solid #c62828;border-radius:4px;margin:.6em 0;padding:.4em .6em}
.entry.equivalent{border-left-color:#2e7d32}.entry.missing,.entry.extra,.entry.moved{border-left-color:#6a1b9a}
.entry .title{margin-bottom:.4em}
.sides{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:8px}
.sides .side{font-size:12px;color:#555;margin-bottom:2px}
.sides .absent{color:#999;font-style:italic;padding:6px}
table.divs{font-size:12.5px;margin:.5em 0 0}
table.divs td{font-family:ui-monospace,monospace}
details.same{margin:.3em 0;color:#2e7d32}
details.same pre{color:#444}
)";
}

namespace {

// The lines of one transcript file a comparison shows, read in one pass: an entry's frame as its
// pretty HTML with its places highlighted (rendered as it is read, so a multi-MiB frame is not
// kept), a folded identical frame as its first characters.
struct FileLines {
  std::map<std::size_t, std::string> frames;
  std::size_t lines = 0;          // lines in the file
  std::string problem;            // why the file could not be read ("" when it was)
};

using Places = std::map<std::size_t, std::vector<std::string>>;  // line → places to highlight

FileLines read_lines(const std::string& file, const Places& whole, const std::set<std::size_t>& heads,
                     const HtmlDiffLimits& limits) {
  FileLines out;
  auto reader = TranscriptReader::open(file);
  if (!reader) {
    out.problem = reader.error().render();
    return out;
  }
  while (auto item = reader->next()) {
    const std::size_t line = reader->line();
    out.lines = line;
    if (!*item) continue;
    const std::string_view text = (*item)->json_text();
    if (auto it = whole.find(line); it != whole.end()) {
      out.frames[line] = "<pre class=\"json\">" + html::pretty_json_html(text, it->second, limits.frame_lines) + "</pre>";
    } else if (heads.count(line)) {
      std::size_t cut = std::min<std::size_t>(text.size(), 240);
      while (cut < text.size() && cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
      out.frames[line] = html::escape(text.substr(0, cut)) + (cut < text.size() ? "…" : "");
    }
  }
  return out;
}

std::string str(const json::value* v) {
  if (!v) return {};
  if (const json::string* s = v->if_string()) return std::string(s->data(), s->size());
  return serialize_json(*v);
}

std::size_t line_of(const json::value& location) {
  const json::object* o = location.if_object();
  if (!o) return 0;
  const json::value* line = o->if_contains("line");
  return line && line->is_number() ? line->to_number<std::size_t>() : 0;
}

Verdict verdict_of(std::string_view text) {
  if (text == "identical") return Verdict::identical;
  if (text == "equivalent") return Verdict::equivalent;
  return Verdict::divergent;
}

DiffCounts counts_of(const json::object& c) {
  DiffCounts counts;
  if (const json::object* k = c.contains("counts") ? c.at("counts").if_object() : nullptr) {
    auto n = [&](const char* name) { return k->contains(name) ? k->at(name).to_number<std::size_t>() : std::size_t{0}; };
    counts = DiffCounts{n("identical"), n("equivalent"), n("divergent"), n("missing"), n("extra"), n("moved")};
  }
  return counts;
}

std::string side_html(const FileLines& file, std::string_view name, std::size_t line) {
  if (line == 0) return "<div class=\"absent\">no frame on this side</div>";
  auto it = file.frames.find(line);
  const std::string head = fmt::format("<div class=\"side\">{} line {}</div>", name, line);
  if (it == file.frames.end())
    return head + "<div class=\"absent\">the frame cannot be shown: " +
           html::escape(file.problem.empty() ? "the file has no such line any more" : file.problem) + "</div>";
  return head + it->second;
}

}  // namespace

void render_comparison_html(std::ostream& out, const json::value& comparison, std::string_view id,
                            const HtmlDiffLimits& limits) {
  const json::object& c = comparison.as_object();
  const std::string expected_file = str(c.if_contains("expected"));
  const std::string actual_file = str(c.if_contains("actual"));
  const std::string verdict = str(c.if_contains("verdict"));
  const std::string side = str(c.if_contains("side"));
  const json::array empty;
  const json::array& frames = c.contains("frames") && c.at("frames").is_array() ? c.at("frames").as_array() : empty;
  const DiffCounts counts = counts_of(c);
  const std::size_t shown = std::min(frames.size(), limits.entries);

  // Which lines to read: entries whole; the first frames of each identical run as heads.
  Places expected_whole, actual_whole;
  std::set<std::size_t> heads;
  std::size_t previous = 0;
  auto add_run = [&](std::size_t from, std::size_t to) {  // lines [from, to)
    for (std::size_t l = from; l < to && l < from + limits.fold_frames; ++l) heads.insert(l);
  };
  for (std::size_t i = 0; i < shown; ++i) {
    const std::size_t e = line_of(frames[i].at("expected")), a = line_of(frames[i].at("actual"));
    if (e) {
      if (e > previous + 1) add_run(previous + 1, e);
      previous = std::max(previous, e);
    }
    std::vector<std::string>* ex_places = e ? &expected_whole[e] : nullptr;
    std::vector<std::string>* ac_places = a ? &actual_whole[a] : nullptr;
    if (const json::value* d = frames[i].as_object().if_contains("divergences"); d && d->is_array()) {
      for (const json::value& div : d->as_array()) {
        const json::object& o = div.as_object();
        const std::string path = str(o.if_contains("path"));
        if (ex_places && o.contains("expected")) ex_places->push_back(path);
        if (ac_places && o.contains("actual")) ac_places->push_back(path);
      }
    }
  }
  if (shown == frames.size()) add_run(previous + 1, std::numeric_limits<std::size_t>::max() - limits.fold_frames);
  const FileLines ex = read_lines(expected_file, expected_whole, heads, limits);
  const FileLines ac = read_lines(actual_file, actual_whole, {}, limits);

  out << fmt::format("<section class=\"cmp\" id=\"{}\"><h2><span class=\"badge {}\">{}</span> <code>{}</code> → <code>{}</code></h2>\n",
                     html::escape(id), html::escape(verdict), html::escape(verdict), html::escape(expected_file),
                     html::escape(actual_file));
  out << "<p class=\"counts\">" << html::escape(summary_line(verdict_of(verdict), counts))
      << (side != "both" && !side.empty() ? " — only " + html::escape(side) + " frames compared" : "") << "</p>\n";
  if (const json::value* w = c.if_contains("warnings"); w && w->is_array())
    for (const json::value& warning : w->as_array()) out << "<p class=\"muted\">warning: " << html::escape(str(&warning)) << "</p>\n";
  if (!ex.problem.empty()) out << "<p class=\"muted\">" << html::escape(ex.problem) << "</p>\n";

  const std::string same = side == "both" || side.empty() ? "identical" : "identical (or not compared)";
  auto fold = [&](std::size_t from, std::size_t to) {  // expected lines [from, to] are identical
    if (from > to || from == 0) return;
    out << fmt::format("<details class=\"same\"><summary>{} {} frame{} · expected lines {}–{}</summary><pre>", to - from + 1, same,
                       to == from ? "" : "s", from, to);
    for (std::size_t l = from; l <= to && l < from + limits.fold_frames; ++l) {
      auto it = ex.frames.find(l);
      out << fmt::format("{:>6}  ", l) << (it == ex.frames.end() ? std::string("…") : it->second) << '\n';
    }
    if (to - from + 1 > limits.fold_frames) out << fmt::format("… and {} more\n", to - from + 1 - limits.fold_frames);
    out << "</pre></details>\n";
  };

  previous = 0;
  for (std::size_t i = 0; i < shown; ++i) {
    const json::object& f = frames[i].as_object();
    const std::string outcome = str(f.if_contains("outcome"));
    const std::size_t e = line_of(f.at("expected")), a = line_of(f.at("actual"));
    if (e) {
      if (e > previous + 1) fold(previous + 1, e - 1);
      previous = std::max(previous, e);
    }
    std::string rows;
    if (const json::value* d = f.if_contains("divergences"); d && d->is_array()) {
      for (const json::value& div : d->as_array()) {
        const json::object& o = div.as_object();
        const std::string path = str(o.if_contains("path"));
        rows += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", html::escape(path.empty() ? "(the frame)" : path),
                            o.contains("expected") ? html::escape(serialize_json(o.at("expected"))) : "<i>absent</i>",
                            o.contains("actual") ? html::escape(serialize_json(o.at("actual"))) : "<i>absent</i>",
                            html::escape(str(o.if_contains("note"))));
      }
    }
    std::string title = html::escape(str(f.if_contains("signature")));
    if (f.contains("actualSignature")) title += " / actual: " + html::escape(str(f.if_contains("actualSignature")));
    out << fmt::format("<div class=\"entry {}\" id=\"{}-{}\"><div class=\"title\"><span class=\"badge {}\">{}</span> {}</div>\n",
                       html::escape(outcome), html::escape(id), i, html::escape(outcome), html::escape(outcome), title);
    out << "<div class=\"sides\"><div>" << side_html(ex, "expected", e) << "</div><div>" << side_html(ac, "actual", a)
        << "</div></div>\n";
    if (!rows.empty())
      out << "<table class=\"divs\"><tr><th>path</th><th>expected</th><th>actual</th><th>note</th></tr>\n" << rows << "</table>\n";
    out << "</div>\n";
  }
  if (shown < frames.size() || shown < counts.frames() - counts.identical) {
    const std::size_t all = std::max(frames.size(), counts.frames() - counts.identical);
    out << fmt::format("<p class=\"note\">The page shows the first {} of {} frames that are not identical.</p>\n", shown, all);
  } else if (ex.lines > previous) {
    fold(previous + 1, ex.lines);
  }
  out << "</section>\n";
}

void render_diff_html(std::ostream& out, const json::value& document, const HtmlDiffLimits& limits) {
  const json::object& d = document.as_object();
  const std::string verdict = str(d.if_contains("verdict"));
  html::begin_page(out, {"msptk diff: " + verdict, std::string(comparison_css()), false});
  out << "<h1>msptk diff: <span class=\"badge " << html::escape(verdict) << "\" id=\"verdict\">" << html::escape(verdict)
      << "</span></h1>\n";
  const json::array& comparisons = d.at("comparisons").as_array();
  out << "<p id=\"summary\">" << html::escape(summary_line(verdict_of(verdict), counts_of(d))) << "</p>\n";
  out << "<table id=\"comparisons\"><tr><th>expected</th><th>actual</th><th>verdict</th><th>frames</th></tr>\n";
  for (std::size_t i = 0; i < comparisons.size(); ++i) {
    const json::object& c = comparisons[i].as_object();
    const std::string v = str(c.if_contains("verdict"));
    out << fmt::format("<tr><td><a href=\"#cmp-{}\"><code>{}</code></a></td><td><code>{}</code></td><td><span class=\"badge {}\">{}</span></td><td>{}</td></tr>\n",
                       i, html::escape(str(c.if_contains("expected"))), html::escape(str(c.if_contains("actual"))), html::escape(v),
                       html::escape(v), html::escape(summary_line(verdict_of(v), counts_of(c))));
  }
  out << "</table>\n";
  if (const json::value* u = d.if_contains("unpairedLegs"); u && u->is_array())
    for (const json::value& leg : u->as_array())
      out << "<p class=\"muted\">legs file only in " << html::escape(str(leg.as_object().if_contains("side"))) << ": <code>"
          << html::escape(str(leg.as_object().if_contains("file"))) << "</code> (not compared)</p>\n";
  for (std::size_t i = 0; i < comparisons.size(); ++i) render_comparison_html(out, comparisons[i], fmt::format("cmp-{}", i), limits);
  html::end_page(out);
}

}  // namespace msptk
