#include "msptk/html/page.hpp"

#include "msptk/normalizer/pretty.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace msptk::html {

namespace {

// Rules every page shares: type, tables, badges, the pretty JSON and its highlights.
constexpr std::string_view kSharedCss = R"(
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fff}
h1{font-size:1.4em;margin:.2em 0 .6em}h2{font-size:1.15em;margin-top:1.4em}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
pre.json{margin:0;padding:6px 8px;background:#f7f7f9;border:1px solid #ddd;border-radius:4px;overflow:auto;white-space:pre}
pre.json mark.hl{background:#ffe08a;color:inherit;display:inline-block;min-width:100%}
pre.json mark.uni{background:#d7ecff;color:inherit;display:inline-block;min-width:100%}
pre.json b.ch{background:#f4a000;color:#000;font-weight:700;border-radius:2px}
pre.json mark.uni b.ch{background:#90c8ff}
pre.json details.ctx{display:block}pre.json details.ctx>summary{display:block;color:#1565c0;font-style:italic;list-style:none}
pre.json details.ctx>summary::-webkit-details-marker{display:none}
table{border-collapse:collapse;margin:.4em 0 1em}
th,td{border:1px solid #ccc;padding:2px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f0}
.badge{display:inline-block;padding:0 6px;border-radius:3px;font-weight:600;font-size:12px;color:#fff;background:#777}
.badge.pass,.badge.identical,.badge.equivalent{background:#2e7d32}.badge.fail,.badge.divergent,.badge.error{background:#c62828}
.badge.skip{background:#757575}.badge.xfail{background:#ef6c00}.badge.missing,.badge.extra,.badge.moved{background:#6a1b9a}
.muted{color:#777}
.note{background:#fff3cd;border:1px solid #e0c36c;padding:4px 8px}
details>summary{cursor:pointer}
#script-error{background:#c62828;color:#fff;padding:6px;font-weight:600}
)";

// Installed first: a script error anywhere in the page becomes a visible element.
constexpr std::string_view kErrorTrap = R"(<script>
window.onerror=function(message,source,line){var d=document.getElementById('script-error');if(!d){d=document.createElement('div');d.id='script-error';(document.body||document.documentElement).insertBefore(d,(document.body||document.documentElement).firstChild);}d.textContent='script error: '+message+' (line '+line+')';};
</script>
)";

}  // namespace

void append_escaped(std::string& out, std::string_view text) {
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
}

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_escaped(out, text);
  return out;
}

std::string anchor(std::string_view prefix, std::string_view text) {
  std::string out(prefix);
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if ((b < 0x80 && std::isalnum(b)) || c == '-') out += c;
    else if (c == '_') out += "__";
    else out += fmt::format("_{:02x}", b);
  }
  return out;
}

void begin_page(std::ostream& out, const PageOptions& options) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'"
      << (options.script ? "; script-src 'unsafe-inline'" : "") << "\">\n"
      << "<title>" << escape(options.title) << "</title>\n";
  if (options.script) out << kErrorTrap;
  out << "<style>" << kSharedCss << options.css << "</style></head><body>\n";
}

void end_page(std::ostream& out, std::string_view script) {
  if (!script.empty())
    out << "<script>\n" << script << "\ndocument.body.setAttribute('data-ready','1');\n</script>\n";
  out << "</body></html>\n";
}

namespace {

// `text` cut to `chars` code points, "…" marking the cut.
std::string_view cut(std::string_view text, std::size_t chars, bool& was_cut) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (n++ == chars) {
      was_cut = true;
      return text.substr(0, i);
    }
  }
  was_cut = false;
  return text;
}

}  // namespace

std::string changed_chars_html(std::string_view text, std::string_view other) {
  std::size_t prefix = 0;
  while (prefix < text.size() && prefix < other.size() && text[prefix] == other[prefix]) ++prefix;
  while (prefix > 0 && (static_cast<unsigned char>(text[prefix]) & 0xC0) == 0x80) --prefix;
  std::size_t suffix = 0;
  while (suffix < text.size() - prefix && suffix < other.size() - std::min(prefix, other.size()) &&
         text[text.size() - 1 - suffix] == other[other.size() - 1 - suffix])
    ++suffix;
  while (suffix > 0 && (static_cast<unsigned char>(text[text.size() - suffix]) & 0xC0) == 0x80) --suffix;
  std::string out;
  append_escaped(out, text.substr(0, prefix));
  const std::string_view middle = text.substr(prefix, text.size() - prefix - suffix);
  if (!middle.empty()) {
    out += "<b class=\"ch\">";
    append_escaped(out, middle);
    out += "</b>";
  }
  append_escaped(out, text.substr(text.size() - suffix));
  return out;
}

std::string pretty_json_html(std::string_view json_text, const std::vector<std::string>& places, std::size_t max_lines,
                             std::size_t max_line_chars) {
  std::vector<Highlight> marks;
  for (const std::string& p : places) marks.push_back(Highlight{p, "hl", {}, {}});
  return pretty_json_html(json_text, marks, PrettyHtmlOptions{max_lines, max_line_chars, 0});
}

// A frame of at most this many lines is shown whole.
constexpr std::size_t kFoldFrom = 30;

std::string pretty_json_html(std::string_view json_text, const std::vector<Highlight>& places, const PrettyHtmlOptions& options) {
  std::string out;
  auto laid = pretty_lines(json_text, options.max_lines);
  if (!laid) {  // not JSON: the text as it is (cut), the whole of it highlighted when a place is named
    bool was_cut = false;
    const std::string_view shown = cut(json_text, options.max_lines * options.max_line_chars, was_cut);
    const bool mark = !places.empty();
    if (mark) out += "<mark class=\"" + places.front().cls + "\">";
    append_escaped(out, shown);
    if (was_cut) out += "…";
    if (mark) out += "</mark>";
    return out;
  }
  const std::vector<PrettyLine>& lines = laid->lines;
  // Each line's highlight (the first place holding it), and its distance to the nearest one.
  std::vector<const Highlight*> mark_of(lines.size(), nullptr);
  for (std::size_t i = 0; i < lines.size(); ++i)
    for (const Highlight& p : places)
      if (location_within(lines[i].location, p.path)) {
        mark_of[i] = &p;
        break;
      }
  std::vector<bool> folded(lines.size(), false);
  if (options.context && !places.empty() && lines.size() > kFoldFrom) {
    constexpr std::size_t kFar = static_cast<std::size_t>(-1);
    std::vector<std::size_t> distance(lines.size(), kFar);
    std::size_t last = kFar;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (mark_of[i]) last = i;
      if (last != kFar) distance[i] = i - last;
    }
    last = kFar;
    for (std::size_t i = lines.size(); i-- > 0;) {
      if (mark_of[i]) last = i;
      if (last != kFar) distance[i] = std::min(distance[i], last - i);
    }
    for (std::size_t i = 0; i < lines.size();) {
      std::size_t j = i;
      while (j < lines.size() && distance[j] > options.context) ++j;
      if (j - i >= 4) std::fill(folded.begin() + static_cast<std::ptrdiff_t>(i), folded.begin() + static_cast<std::ptrdiff_t>(j), true);
      i = j == i ? i + 1 : j;
    }
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (folded[i] && (i == 0 || !folded[i - 1])) {
      std::size_t j = i;
      while (j < lines.size() && folded[j]) ++j;
      out += fmt::format("<details class=\"ctx\"><summary>⋯ {} unchanged lines</summary>", j - i);
    }
    const PrettyLine& line = lines[i];
    const Highlight* mark = mark_of[i];
    if (mark) out += "<mark class=\"" + mark->cls + "\">";
    out.append(2 * line.depth, ' ');
    bool was_cut = false;
    const std::string_view text = cut(line.text, options.max_line_chars, was_cut);
    // The changed characters of a scalar value shown whole on this line.
    std::size_t at = std::string_view::npos;
    if (mark && !was_cut && line.location == mark->path && !mark->value.empty() && !mark->other.empty() &&
        mark->value != mark->other && mark->value.front() != '{' && mark->value.front() != '[')
      at = text.rfind(mark->value);
    if (at != std::string_view::npos) {
      append_escaped(out, text.substr(0, at));
      out += changed_chars_html(mark->value, mark->other);
      append_escaped(out, text.substr(at + mark->value.size()));
    } else {
      append_escaped(out, text);
    }
    if (was_cut) out += "…";
    if (mark) out += "</mark>";
    out += '\n';
    if (folded[i] && (i + 1 == lines.size() || !folded[i + 1])) out += "</details>";
  }
  if (laid->truncated)
    out += fmt::format("<span class=\"muted\">… (only the first {} lines are shown)</span>\n", options.max_lines);
  return out;
}

}  // namespace msptk::html
