// The one-line summary of a message: the scalar values of its params (a request or a
// notification), result (a response) or error, as `name=value` pairs, the key values first —
// ids (`id`, `…Id`), then status-like values (`status`, `state`, `code`, `kind`, `type`,
// `disposition`), then the first text (`text`, `delta`, `message`) —, then the others in
// document order (a null value among the others; a pair said twice is said once). A name is the
// value's member name (an array element's: `name[i]`), a string is written as JSON (control
// characters escaped) and cut at 48 characters with "…", an empty container as `{}` / `[]`.
// At most 24 values and about 400 bytes: renderers cut it further to their width.
#pragma once

#include "msptk/transcript/frame.hpp"

#include <boost/json/value.hpp>

#include <string>

namespace msptk::show {

// A string value is shown cut to this many columns: a summary of a value whose strings are cut to
// one code point more (text_key.hpp's pruned text) is the same.
inline constexpr std::size_t kSummaryTextColumns = 48;

std::string summarize(const boost::json::value& message, const Envelope& envelope);

// `text` cut to at most `columns` terminal columns (a code point a column), "…" marking a cut.
std::string cut_to_columns(std::string_view text, std::size_t columns);

// The terminal columns `text` takes (a code point a column).
std::size_t columns_of(std::string_view text);

}  // namespace msptk::show
