// Renderers of the maintenance reports (staleness, repin, regen). Text quotes input only
// through display_text (transcript/display.hpp), so a control byte in a scenario name, a pin or
// a ledger member never splits or colours a line. Text is one line per finding, `FILE:LINE: error|note: message [rule]`, grouped per fingerprint, then a summary
// line; JSON carries the same data as one document (shapes in README's staleness section).
#pragma once

#include "msptk/maintenance/staleness.hpp"

#include <ostream>
#include <string>

namespace msptk::maintenance {

void render_staleness_text(const StalenessReport& report, std::ostream& out);
void render_staleness_json(const StalenessReport& report, std::ostream& out);

// "37 manifests: 3 current, 0 acknowledged, 34 stale (3 fingerprints: ...)", no newline.
std::string staleness_summary(const StalenessReport& report);

// A pin as a text report shows it: the fingerprint, "nothing" when there is none, the JSON text
// of a pin that is not a string followed by " (not a string)"; display_text applied.
std::string shown_pin(const Pin& pin);

// One change as a text line body: "/methods/goal~1edit: method added [added]".
std::string describe(const SchemaChange& change);

}  // namespace msptk::maintenance
