// The HTML form of diff reports (`msptk diff --format html`, and the diffs inside `msptk check
// --html`): one self-contained page (html/page.hpp). It renders the JSON form of a report
// (docs/diff-json.md), the one both verbs hold: the summary, then for each comparison its files,
// verdict and counts and its frames in transcript order — each frame that is not identical with
// the expected and the actual frame side by side, pretty-printed (tokens as sent), the differing
// places highlighted in both — within a line the characters that differ — and listed beneath
// (path, expected, actual, note), the unchanged lines of a big frame folded; an equivalent frame
// as one line naming its unified values, expanding to both frames with those values marked; each
// run of identical frames folded into one line that expands to its frames, each a line that
// expands to its pretty JSON. Above the frames, the masked paths and the unified clientInfo
// values the text report names; both files are linked (file:// addresses).
//
// The frames are read again from the files the comparison names, one pass over each, keeping
// only the lines the page shows; a file that cannot be read any more (a check report merged
// after its recordings were removed) leaves the frames out and says why. A comparison shows at
// most HtmlDiffLimits::entries entries; `msptk diff --format html` keeps only those (KeptEntries),
// so its memory does not grow with how much two transcripts differ.
#pragma once

#include "msptk/differ/diff.hpp"

#include <boost/json/value.hpp>

#include <ostream>
#include <string_view>

namespace msptk {

struct HtmlDiffLimits {
  std::size_t entries = 500;      // entries shown per comparison (the rest counted)
  std::size_t fold_frames = 40;   // frames listed in a folded run of identical frames
  std::size_t frame_lines = 300;  // pretty lines shown of one frame
  // Set when the actual file is a temporary recording removed after the page is written (check
  // without --keep): its name is then not a link, and this note follows it.
  std::string actual_removed_note;
};

// An EntrySink that keeps the first `limit` entries of each comparison and counts the rest;
// restore() puts them back into the report the diff returned.
class KeptEntries final : public EntrySink {
 public:
  explicit KeptEntries(std::size_t limit) : limit_(limit) {}
  void begin() override { kept_.emplace_back(); }
  void entry(const DiffResult& result, DiffEntry&& entry) override;
  void restore(DiffReport& report);

 private:
  std::size_t limit_;
  std::vector<std::vector<DiffEntry>> kept_;
};

// The CSS rules render_comparison_html's markup needs (a page embedding comparisons adds them).
std::string_view comparison_css();

// One comparison (a `comparisons[]` object of docs/diff-json.md) as an HTML <section>; `id`
// prefixes its anchors (unique within the page).
void render_comparison_html(std::ostream& out, const boost::json::value& comparison, std::string_view id,
                            const HtmlDiffLimits& limits = {});

// A whole page for a diff document (docs/diff-json.md).
void render_diff_html(std::ostream& out, const boost::json::value& document, const HtmlDiffLimits& limits = {});

}  // namespace msptk
