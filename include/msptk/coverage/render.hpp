// Renderers of a CoverageMap.
//   text  one block per table, rows sorted by least covered (fewest frames first, then name),
//         then what the corpus uses that the bundle lacks, then the summary line
//         ("methods 31/57, requests 2/2, notifications 22/35, …")
//   json  the same data as one document (docs/coverage-json.md)
//   html  one self-contained page (inline CSS, no script, no network): the summary, a coverage
//         bar per table, the tables with each row linking the scenarios that exercise it to
//         their entry in the page's scenario list
#pragma once

#include "msptk/coverage/coverage.hpp"

#include <ostream>

namespace msptk::coverage {

void render_text(const CoverageMap& map, std::ostream& out);
void render_json(const CoverageMap& map, std::ostream& out);
void render_html(const CoverageMap& map, std::ostream& out);

}  // namespace msptk::coverage
