#include "msptk/differ/html.hpp"

#include "msptk/differ/render.hpp"
#include "msptk/html/page.hpp"
#include "msptk/normalizer/path.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
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
.cmp h2 code,.cmp h2 a{font-size:13px;overflow-wrap:anywhere}.cmp h2 .removed{font-size:12px;font-weight:400}
.facts{margin:.2em 0;font-size:13px}.facts code{overflow-wrap:anywhere}
.entry{border:1px solid #ddd;border-left:4px solid #c62828;border-radius:4px;margin:.6em 0;padding:.4em .6em;min-width:0}
.entry.equivalent{border-left-color:#2e7d32;padding:.15em .6em}.entry.missing,.entry.extra,.entry.moved{border-left-color:#6a1b9a}
.entry .title{margin-bottom:.4em;overflow-wrap:anywhere}
details.entry>summary{list-style:none;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
details.entry>summary::-webkit-details-marker{display:none}
details.entry>summary::before,details.same>summary::before,details.f>summary::before{content:'▸ ';color:#1565c0}
details.entry[open]>summary::before,details.same[open]>summary::before,details.f[open]>summary::before{content:'▾ '}
details.entry[open]>summary{margin-bottom:.4em}
mark.uni-v{background:#d7ecff;color:inherit;font-family:ui-monospace,monospace;font-size:12px;padding:0 3px;border-radius:2px}
.sides{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:8px}
.sides .side{font-size:12px;color:#555;margin-bottom:2px}
.sides .absent{color:#999;font-style:italic;padding:6px}
table.divs{font-size:12.5px;margin:.5em 0 0;table-layout:fixed;width:100%}
table.divs td{font-family:ui-monospace,monospace;overflow-wrap:anywhere}
table.divs td b.ch{background:#f4a000;color:#000}
details.same{margin:.3em 0;color:#2e7d32;min-width:0}
details.same>summary{list-style:none}details.same>summary::-webkit-details-marker{display:none}
details.same .frames{margin:.2em 0 .2em 1.2em;color:#444}
details.f>summary{list-style:none;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;font-family:ui-monospace,monospace;font-size:12px}
details.f>summary::-webkit-details-marker{display:none}
details.f pre.json{white-space:pre-wrap;overflow-wrap:anywhere;margin:2px 0 6px 1.2em}
)";
}

namespace {

constexpr std::size_t kKeptText = 256 * 1024;  // an equivalent frame's text kept to find its unified values
constexpr std::size_t kIdenticalLines = 60;    // pretty lines shown of an identical frame
constexpr std::size_t kContext = 3;            // lines kept around a highlight in a big frame

// One side's value at each place an entry names: `path` → (this side's JSON, the other's).
using Highlights = std::map<std::size_t, std::vector<html::Highlight>>;  // line → places

// The lines of one transcript file a comparison shows, read in one pass: an entry's frame as its
// pretty HTML with its places highlighted (rendered as it is read, so a multi-MiB frame is not
// kept), an equivalent frame's text (to find its unified values once both sides are read), a
// folded identical frame as its first characters and its first pretty lines.
struct FileLines {
  std::map<std::size_t, std::string> frames;
  std::map<std::size_t, std::string> texts;  // equivalent entries (texts up to kKeptText)
  std::map<std::size_t, std::pair<std::string, std::string>> heads;  // identical: one line, pretty
  std::size_t lines = 0;          // lines in the file
  std::string problem;            // why the file could not be read ("" when it was)
};

std::string one_line(std::string_view text, std::size_t max) {
  std::size_t cut = std::min<std::size_t>(text.size(), max);
  while (cut < text.size() && cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return html::escape(text.substr(0, cut)) + (cut < text.size() ? "…" : "");
}

FileLines read_lines(const std::string& file, const Highlights& whole, const std::set<std::size_t>& keep_text,
                     const std::set<std::size_t>& heads, const HtmlDiffLimits& limits) {
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
    if (keep_text.count(line) && text.size() <= kKeptText) {
      out.texts[line] = std::string(text);
    } else if (auto it = whole.find(line); it != whole.end()) {
      out.frames[line] = "<pre class=\"json\">" +
                         html::pretty_json_html(text, it->second, html::PrettyHtmlOptions{limits.frame_lines, 400, kContext}) + "</pre>";
    } else if (heads.count(line)) {
      out.heads[line] = {one_line(text, 200), html::pretty_json_html(text, {}, kIdenticalLines)};
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

// A link to a file the report names (its absolute file:// address), showing the name as given;
// a file that does not exist (any more) is named, not linked.
std::string file_link(const std::string& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return "<code>" + html::escape(file) + "</code>";  // a link to nothing helps no one
  const std::filesystem::path absolute = std::filesystem::absolute(file, ec);
  std::string url = "file://";
  for (char c : (ec ? std::filesystem::path(file) : absolute).string()) {
    const auto b = static_cast<unsigned char>(c);
    if (std::isalnum(b) || std::string_view("/-._~").find(c) != std::string_view::npos) url += c;
    else url += fmt::format("%{:02X}", b);
  }
  return "<a href=\"" + html::escape(url) + "\"><code>" + html::escape(file) + "</code></a>";
}

// A place where two JSON values differ and the value on each side (null: absent there).
struct Difference {
  std::string path;
  const json::value* expected;
  const json::value* actual;
};

// The places where two JSON values differ (members on one side only, scalars not equal), at
// most `max` of them: for an equivalent frame, the values the masks unified.
void differing_places(const json::value& e, const json::value& a, const std::string& at, std::vector<Difference>& out,
                      std::size_t max) {
  if (out.size() >= max) return;
  if (e.is_object() && a.is_object()) {
    const json::object& eo = e.get_object();
    const json::object& ao = a.get_object();
    for (const auto& m : eo) {
      const json::value* other = ao.if_contains(m.key());
      if (other) differing_places(m.value(), *other, append_member(at, m.key()), out, max);
      else if (out.size() < max) out.push_back(Difference{append_member(at, m.key()), &m.value(), nullptr});
    }
    for (const auto& m : ao)
      if (!eo.contains(m.key()) && out.size() < max) out.push_back(Difference{append_member(at, m.key()), nullptr, &m.value()});
    return;
  }
  if (e.is_array() && a.is_array()) {
    const json::array& ea = e.get_array();
    const json::array& aa = a.get_array();
    for (std::size_t i = 0; i < std::max(ea.size(), aa.size()); ++i) {
      if (i < ea.size() && i < aa.size()) differing_places(ea[i], aa[i], append_index(at, i), out, max);
      else if (out.size() < max) out.push_back(Difference{append_index(at, i), i < ea.size() ? &ea[i] : nullptr, i < aa.size() ? &aa[i] : nullptr});
    }
    return;
  }
  if (serialize_json(e) != serialize_json(a)) out.push_back(Difference{at, &e, &a});
}

struct Unified {
  std::vector<html::Highlight> expected, actual;
  std::string line;  // "path a → b" pairs, the values marked
};

// The unified values of an equivalent frame: its places that differ, each side's value.
Unified unified_values(const std::string& expected_text, const std::string& actual_text) {
  Unified u;
  auto e = parse_json(expected_text);
  auto a = parse_json(actual_text);
  if (!e || !a) return u;
  std::vector<Difference> places;
  differing_places(*e, *a, "", places, 24);
  for (const Difference& d : places) {
    const std::string es = d.expected ? serialize_json(*d.expected) : std::string();
    const std::string as = d.actual ? serialize_json(*d.actual) : std::string();
    u.expected.push_back(html::Highlight{d.path, "uni", es, as});
    u.actual.push_back(html::Highlight{d.path, "uni", as, es});
    u.line += fmt::format("{}<code>{}</code> <mark class=\"uni-v\">{}</mark> → <mark class=\"uni-v\">{}</mark>", u.line.empty() ? "" : ", ",
                          html::escape(d.path), d.expected ? html::changed_chars_html(es, as) : "<i>absent</i>",
                          d.actual ? html::changed_chars_html(as, es) : "<i>absent</i>");
  }
  return u;
}

std::string side_html(const FileLines& file, std::string_view name, const std::string& file_name, std::size_t line,
                      const std::vector<html::Highlight>* unified = nullptr) {
  if (line == 0) return "<div class=\"absent\">no frame on this side</div>";
  const std::string head = fmt::format("<div class=\"side\">{} line {}</div>", name, line);
  if (auto t = file.texts.find(line); t != file.texts.end())
    return head + "<pre class=\"json\">" +
           html::pretty_json_html(t->second, unified ? *unified : std::vector<html::Highlight>{}, html::PrettyHtmlOptions{300, 400, kContext}) +
           "</pre>";
  auto it = file.frames.find(line);
  if (it == file.frames.end())
    return head + "<div class=\"absent\">the frame cannot be shown: " +
           html::escape(file.problem.empty() ? "the file has no such line any more" : file.problem + " (" + file_name + ")") + "</div>";
  return head + it->second;
}

std::string lines_text(std::string_view what, std::size_t from, std::size_t to) {
  return from == to ? fmt::format("{} line {}", what, from) : fmt::format("{} lines {}–{}", what, from, to);
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

  // Which lines to read: entries whole (equivalent ones as text); the first frames of each
  // identical run as heads.
  Highlights expected_whole, actual_whole;
  std::set<std::size_t> expected_text, actual_text;
  std::set<std::size_t> heads;
  std::size_t previous = 0;
  auto add_run = [&](std::size_t from, std::size_t to) {  // lines [from, to)
    for (std::size_t l = from; l < to && l < from + limits.fold_frames; ++l) heads.insert(l);
  };
  for (std::size_t i = 0; i < shown; ++i) {
    const json::object& f = frames[i].as_object();
    const std::size_t e = line_of(f.at("expected")), a = line_of(f.at("actual"));
    if (e) {
      if (e > previous + 1) add_run(previous + 1, e);
      previous = std::max(previous, e);
    }
    if (str(f.if_contains("outcome")) == "equivalent") {
      if (e) expected_text.insert(e);
      if (a) actual_text.insert(a);
    }
    std::vector<html::Highlight>* ex_places = e ? &expected_whole[e] : nullptr;
    std::vector<html::Highlight>* ac_places = a ? &actual_whole[a] : nullptr;
    if (const json::value* d = f.if_contains("divergences"); d && d->is_array()) {
      for (const json::value& div : d->as_array()) {
        const json::object& o = div.as_object();
        const std::string path = str(o.if_contains("path"));
        const std::string ev = o.contains("expected") ? serialize_json(o.at("expected")) : std::string();
        const std::string av = o.contains("actual") ? serialize_json(o.at("actual")) : std::string();
        if (ex_places && o.contains("expected")) ex_places->push_back(html::Highlight{path, "hl", ev, av});
        if (ac_places && o.contains("actual")) ac_places->push_back(html::Highlight{path, "hl", av, ev});
      }
    }
  }
  if (shown == frames.size()) add_run(previous + 1, std::numeric_limits<std::size_t>::max() - limits.fold_frames);
  const FileLines ex = read_lines(expected_file, expected_whole, expected_text, heads, limits);
  const FileLines ac = read_lines(actual_file, actual_whole, actual_text, {}, limits);

  const std::string actual_shown = limits.actual_removed_note.empty()
                                       ? file_link(actual_file)
                                       : "<code>" + html::escape(actual_file) + "</code> <span class=\"muted removed\">(" +
                                             html::escape(limits.actual_removed_note) + ")</span>";
  out << fmt::format("<section class=\"cmp\" id=\"{}\"><h2><span class=\"badge {}\">{}</span> {} → {}</h2>\n", html::escape(id),
                     html::escape(verdict), html::escape(verdict), file_link(expected_file), actual_shown);
  out << "<p class=\"counts\">" << html::escape(summary_line(verdict_of(verdict), counts))
      << (side != "both" && !side.empty() ? " — only the " + html::escape(side) + "'s frames compared" : "") << "</p>\n";
  // The masked paths and the unified clientInfo values, as the text report says them.
  if (const json::object* mask = c.contains("mask") ? c.at("mask").if_object() : nullptr) {
    out << "<p class=\"facts masks\">masked paths (" << html::escape(str(mask->if_contains("mode"))) << "): ";
    const json::array* paths = mask->contains("paths") ? mask->at("paths").if_array() : nullptr;
    const json::value* byte_identical = c.if_contains("byteIdentical");
    if (!paths || paths->empty()) {
      out << "none declared";
    } else if (byte_identical && byte_identical->is_bool() && byte_identical->get_bool()) {
      out << "values not inspected, the frames are byte-identical";
    } else {
      for (std::size_t i = 0; i < paths->size(); ++i) {
        const json::object& m = (*paths)[i].as_object();
        out << (i ? ", " : "") << "<code>" << html::escape(str(m.if_contains("path"))) << "</code> "
            << html::escape(str(m.if_contains("covered"))) << " values (" << html::escape(str(m.if_contains("differed")))
            << " differed)";
      }
    }
    out << "</p>\n";
    if (const json::value* ci = mask->if_contains("clientInfo"); ci && ci->is_array())
      for (const json::value& u : ci->as_array()) {
        const json::object& o = u.as_object();
        const std::string ev = o.contains("expected") ? serialize_json(o.at("expected")) : std::string();
        const std::string av = o.contains("actual") ? serialize_json(o.at("actual")) : std::string();
        out << "<p class=\"facts client-info\">unified <code>" << html::escape(str(o.if_contains("path"))) << "</code>: <mark class=\"uni-v\">"
            << html::changed_chars_html(ev, av) << "</mark> → <mark class=\"uni-v\">" << html::changed_chars_html(av, ev) << "</mark></p>\n";
      }
  }
  if (const json::value* w = c.if_contains("warnings"); w && w->is_array())
    for (const json::value& warning : w->as_array()) out << "<p class=\"muted\">warning: " << html::escape(str(&warning)) << "</p>\n";
  if (!ex.problem.empty()) out << "<p class=\"muted\">" << html::escape(ex.problem) << "</p>\n";

  auto fold = [&](std::size_t from, std::size_t to) {  // expected lines [from, to] are identical
    if (from > to || from == 0) return;
    const std::size_t n = to - from + 1;
    const std::string what = side == "both" || side.empty()
                                 ? fmt::format("{} identical frame{}", n, n == 1 ? "" : "s")
                                 : fmt::format("{} frame{}: the {}'s identical, the other side's not compared", n, n == 1 ? "" : "s", side);
    out << fmt::format("<details class=\"same\"><summary>{} · {}</summary><div class=\"frames\">\n", what, lines_text("expected", from, to));
    for (std::size_t l = from; l <= to && l < from + limits.fold_frames; ++l) {
      auto it = ex.heads.find(l);
      if (it == ex.heads.end()) out << fmt::format("<div class=\"muted\">line {}: not shown</div>\n", l);
      else
        out << fmt::format("<details class=\"f\"><summary>{:>5}  {}</summary><pre class=\"json\">{}</pre></details>\n", l,
                           it->second.first, it->second.second);
    }
    if (n > limits.fold_frames) out << fmt::format("<div class=\"muted\">… and {} more</div>\n", n - limits.fold_frames);
    out << "</div></details>\n";
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
    std::string title = html::escape(str(f.if_contains("signature")));
    if (f.contains("actualSignature")) title += " / actual: " + html::escape(str(f.if_contains("actualSignature")));
    if (outcome == "equivalent") {  // one line, the unified values marked; expands to both frames
      Unified u;
      if (auto et = ex.texts.find(e), at = ac.texts.find(a); et != ex.texts.end() && at != ac.texts.end())
        u = unified_values(et->second, at->second);
      out << fmt::format("<details class=\"entry equivalent\" id=\"{}-{}\"><summary><span class=\"badge equivalent\">equivalent</span> {} · "
                         "expected line {} ↔ actual line {}{}{}</summary>\n",
                         html::escape(id), i, title, e, a, u.line.empty() ? "" : " · unified ", u.line);
      out << "<div class=\"sides\"><div>" << side_html(ex, "expected", expected_file, e, &u.expected) << "</div><div>"
          << side_html(ac, "actual", actual_file, a, &u.actual) << "</div></div>\n</details>\n";
      continue;
    }
    std::string rows;
    if (const json::value* d = f.if_contains("divergences"); d && d->is_array()) {
      for (const json::value& div : d->as_array()) {
        const json::object& o = div.as_object();
        const std::string path = str(o.if_contains("path"));
        const std::string ev = o.contains("expected") ? serialize_json(o.at("expected")) : std::string();
        const std::string av = o.contains("actual") ? serialize_json(o.at("actual")) : std::string();
        rows += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", html::escape(path.empty() ? "(the frame)" : path),
                            o.contains("expected") ? (o.contains("actual") ? html::changed_chars_html(ev, av) : html::escape(ev)) : "<i>absent</i>",
                            o.contains("actual") ? (o.contains("expected") ? html::changed_chars_html(av, ev) : html::escape(av)) : "<i>absent</i>",
                            html::escape(str(o.if_contains("note"))));
      }
    }
    out << fmt::format("<div class=\"entry {}\" id=\"{}-{}\"><div class=\"title\"><span class=\"badge {}\">{}</span> {}</div>\n",
                       html::escape(outcome), html::escape(id), i, html::escape(outcome), html::escape(outcome), title);
    out << "<div class=\"sides\"><div>" << side_html(ex, "expected", expected_file, e) << "</div><div>"
        << side_html(ac, "actual", actual_file, a) << "</div></div>\n";
    if (!rows.empty())
      out << "<table class=\"divs\"><colgroup><col style=\"width:22%\"><col style=\"width:26%\"><col style=\"width:26%\"><col></colgroup>"
             "<tr><th>path</th><th>expected</th><th>actual</th><th>note</th></tr>\n"
          << rows << "</table>\n";
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
  const json::array& comparisons = d.at("comparisons").as_array();
  std::string title = "msptk diff: " + verdict;
  if (comparisons.size() == 1) {
    const json::object& c = comparisons[0].as_object();
    title += " · " + str(c.if_contains("expected")) + " → " + str(c.if_contains("actual"));
  }
  html::begin_page(out, {title, std::string(comparison_css()), false});
  out << "<h1>msptk diff: <span class=\"badge " << html::escape(verdict) << "\" id=\"verdict\">" << html::escape(verdict)
      << "</span></h1>\n";
  out << "<p id=\"summary\">" << html::escape(summary_line(verdict_of(verdict), counts_of(d))) << "</p>\n";
  out << "<table id=\"comparisons\"><tr><th>expected</th><th>actual</th><th>verdict</th><th>frames</th></tr>\n";
  for (std::size_t i = 0; i < comparisons.size(); ++i) {
    const json::object& c = comparisons[i].as_object();
    const std::string v = str(c.if_contains("verdict"));
    out << fmt::format("<tr><td>{}</td><td>{}</td><td><a href=\"#cmp-{}\"><span class=\"badge {}\">{}</span></a></td><td>{}</td></tr>\n",
                       file_link(str(c.if_contains("expected"))), file_link(str(c.if_contains("actual"))), i, html::escape(v),
                       html::escape(v), html::escape(summary_line(verdict_of(v), counts_of(c))));
  }
  out << "</table>\n";
  if (const json::value* u = d.if_contains("unpairedLegs"); u && u->is_array())
    for (const json::value& leg : u->as_array())
      out << "<p class=\"muted\">legs file only in " << html::escape(str(leg.as_object().if_contains("side"))) << ": "
          << file_link(str(leg.as_object().if_contains("file"))) << " (not compared)</p>\n";
  for (std::size_t i = 0; i < comparisons.size(); ++i) render_comparison_html(out, comparisons[i], fmt::format("cmp-{}", i), limits);
  html::end_page(out);
}

}  // namespace msptk
