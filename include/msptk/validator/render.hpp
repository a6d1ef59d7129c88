// Renderers of a ValidationReport. The text form is one line per finding,
//   FILE:LINE: error|warning|note: message [rule-id]
// then the summary line
//   N scenarios: N ok, N failed (E errors, W warnings)
// and, when a schema bundle was used, the schema line
//   schema: N frames schema-checked, M envelope-only; frame.schema 2, frame.unknown-enum 1
// Infrastructure problems are written to the error stream as `msptk: error: …`.
// The JSON form (docs/validate-json.md) carries the same data as one document.
#pragma once

#include "msptk/validator/report.hpp"

#include <ostream>

namespace msptk {

void render_text(const ValidationReport& report, std::ostream& out, std::ostream& err);
void render_json(const ValidationReport& report, std::ostream& out);

// The summary line, without a newline.
std::string summary_line(const ValidationSummary& summary);
// The schema line (frames schema-checked / envelope-only, frame.* findings per rule).
std::string schema_line(const ValidationSummary& summary);

}  // namespace msptk
