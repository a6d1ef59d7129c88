// The pieces render_text and render_json assemble a report from, shared with SpooledReport
// (render_spool.cpp), which writes the same reports from entries it spooled: one definition of
// each piece keeps the two byte for byte the same. Private to the differ.
#pragma once

#include "msptk/differ/render.hpp"

#include <boost/json/value.hpp>

#include <ostream>

namespace msptk::render_parts {

// Whether a text report has a block per comparison (legs, or unpaired legs files).
bool several(const DiffReport& report);
// A comparison's text block: its head, one piece per entry (nothing for identical and equivalent
// ones), its tail (masks, warnings, its summary when several); then the report's end.
void text_head(std::ostream& out, const DiffReport& report, const DiffResult& r, const TextStyle& style);
void text_entry(std::ostream& out, const DiffResult& r, const DiffEntry& e, const TextStyle& style);
void text_tail(std::ostream& out, const DiffReport& report, const DiffResult& r, const TextStyle& style);
void text_end(std::ostream& out, const DiffReport& report, const TextStyle& style);

// One element of a comparison's "frames" array (docs/diff-json.md).
boost::json::value frame_json(const DiffResult& r, const DiffEntry& e);

}  // namespace msptk::render_parts
