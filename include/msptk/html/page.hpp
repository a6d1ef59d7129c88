// The HTML toolkit of msptk's reports: every page msptk writes (coverage, show, diff, check) is
// one self-contained file — no external resource, a Content-Security-Policy that forbids
// loading any — built from these parts:
//  - escape(): text from input made safe inside an element or an attribute;
//  - the page shell: begin_page() writes the head (charset, CSP, the shared CSS plus the page's
//    own), and for a page with a script an error trap first, so that a script error shows as
//    an element `#script-error` in the page (a browser test asserts it is absent); end_page()
//    writes the page's script, which marks the body `data-ready="1"` when it has run to its end;
//  - pretty_json_html(): a frame's JSON laid out one member a line (normalizer/pretty.hpp, the
//    tokens as sent) with the places a diff names highlighted (`<mark>`), within such a line the
//    characters that differ from the other side's value (`<b class="ch">`), and in a long frame
//    the lines far from any highlight folded (`<details class="ctx">`), for the diff and check
//    pages; plain for the show page.
// Renderers stay in their modules (differ, check, show, coverage); this holds only what they share.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::html {

// `&`, `<`, `>`, `"` and `'` as entities; everything else unchanged.
std::string escape(std::string_view text);
void append_escaped(std::string& out, std::string_view text);

// An id usable as an HTML anchor, one-to-one: `prefix`, then the text with ASCII letters, digits
// and '-' as they are, '_' as "__", any other byte as '_' and two lowercase hex digits
// ("a.b" -> "a_2eb", "a_b" -> "a__b"), so two texts never share an id.
std::string anchor(std::string_view prefix, std::string_view text);

struct PageOptions {
  std::string title;
  std::string css;     // the page's own rules, after the shared ones
  bool script = false; // the page has a script (end_page's): the error trap is installed
};

void begin_page(std::ostream& out, const PageOptions& options);
// `script`: the page's script (run when the page is parsed), empty for none.
void end_page(std::ostream& out, std::string_view script = {});

// A frame's JSON text as the inside of a <pre class="json">: one member or element a line; each
// line whose value lies within one of `places` (concrete locations, "" = the whole frame) in a
// <mark class="hl">. At most `max_lines` lines and `max_line_chars` characters a line (cut with
// "…", and a last line saying how much is left out); a text that is not JSON is shown as it is.
std::string pretty_json_html(std::string_view json_text, const std::vector<std::string>& places = {},
                             std::size_t max_lines = 400, std::size_t max_line_chars = 400);

// A place to highlight in pretty_json_html: its lines in a <mark class="`cls`">; where a line holds
// exactly the value at `path` and `value` (this side's, as JSON) and `other` (the other side's)
// are given, the characters of `value` that differ from `other` (between their common prefix and
// suffix) in a <b class="ch">.
struct Highlight {
  std::string path;        // a concrete location; "" the whole frame
  std::string cls = "hl";  // "hl" a divergence, "uni" a value unified (equal up to a mask)
  std::string value;       // this side's value as JSON; "" unknown
  std::string other;       // the other side's value as JSON; "" absent there
};

struct PrettyHtmlOptions {
  std::size_t max_lines = 400;
  std::size_t max_line_chars = 400;
  // With highlights, in a frame of more than 30 lines: lines further than this from any
  // highlighted line, in runs of at least four, are folded into one expandable line ("⋯ 25 unchanged lines"); 0: nothing is folded.
  std::size_t context = 0;
};

std::string pretty_json_html(std::string_view json_text, const std::vector<Highlight>& places, const PrettyHtmlOptions& options);

// The characters of `text` that differ from `other` (between their common prefix and suffix, cut
// at code points) in a <b class="ch">, the rest escaped.
std::string changed_chars_html(std::string_view text, std::string_view other);

}  // namespace msptk::html
