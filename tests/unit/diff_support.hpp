// A diff result as the tests compare two ways of reaching it: its text report, a separator, and
// its JSON report (render.hpp), so that two equal strings mean two identical reports.
#pragma once

#include "msptk/differ/render.hpp"

#include <sstream>
#include <string>

namespace msptk::test {

inline std::string rendered(const DiffResult& result) {
  DiffReport report;
  report.comparisons.push_back(result);
  std::ostringstream text, js;
  render_text(text, report);
  render_json(js, report);
  return text.str() + "\n----\n" + js.str();
}

}  // namespace msptk::test
