// The one-line summary of a message: what happened first, then the rest, as `name=value` pairs
// of the scalar values of its params (a request or a notification), result (a response) or
// error. The order:
//   1. the first `delta` (a streamed text leads its row);
//   2. status-like values (`status`, `state`, `terminal`, `code`, `kind`, `type`, `disposition`,
//      `decision`) and texts (`text`, `message`, `delta`), the shallowest first, then in
//      document order: a turn's final status, an item's kind and text, an error's code and
//      message, a request's text;
//   3. the other values in document order (a null among them);
//   4. bookkeeping: cursors (`…Cursor`), times (`…At`, `…Ms`), `sequence`, `revision`;
//   5. ids (`id`, `…Id`; but an id spelled as a word, with no digit, such as a choiceId
//      "allow_session", is among the other values), each name and value said once per session: given a SummaryMemory, an id
//      an earlier summary named is left out (the sessionId, a turn's commandId are named on the
//      first row that carries them, not on every row; a row carrying only ids named before has
//      an empty summary: its frame says nothing new).
// A name is the value's member name; a name two places of the message share, and every `id`
// below the top, is said with its parent's (`item.kind`, `stream.id`); an array element's
// scalar is `name[i]`. A pair said twice is said once. A string is written as JSON (control
// characters escaped) and cut at 48 characters with "…", an empty container as `{}` / `[]`.
// At most 24 values and about 400 bytes: renderers cut it further to their width.
#pragma once

#include "msptk/transcript/frame.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <unordered_set>

namespace msptk::show {

// A string value is shown cut to this many columns: a summary of a value whose strings are cut to
// one code point more (text_key.hpp's pruned text) is the same.
inline constexpr std::size_t kSummaryTextColumns = 48;

// The ids earlier summaries of a session named (`name=value` as shown), so that later ones leave
// them out. Bounded: past kMaxIds remembered, further ids are named every time.
class SummaryMemory {
 public:
  static constexpr std::size_t kMaxIds = 4096;
  // Whether `pair` is named for the first time (and remembers it).
  bool first_time(const std::string& pair);
  bool named(const std::string& pair) const { return seen_.count(pair) != 0; }

 private:
  std::unordered_set<std::string> seen_;
};

// `memory`: the session's ids named so far (null: every id is named).
std::string summarize(const boost::json::value& message, const Envelope& envelope, SummaryMemory* memory = nullptr);

// `text` cut to at most `columns` terminal columns (a code point a column), "…" marking a cut.
std::string cut_to_columns(std::string_view text, std::size_t columns);

// The terminal columns `text` takes (a code point a column).
std::size_t columns_of(std::string_view text);

}  // namespace msptk::show
