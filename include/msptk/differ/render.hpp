// Renderers of diff reports. The text renderer writes one block per frame that differs
// (divergent, missing, extra, moved) with both file:line, the frame's signature and one
// `path: expected → actual` line per differing place (plus a note for unification conflicts),
// then the mask accounting, warnings, and as its last line the verdict:
//   divergent: 19 frames (16 identical, 0 equivalent, 1 divergent, 1 missing, 1 extra, 0 moved)
// The JSON renderer writes one document whose schema is docs/diff-json.md.
//
// A SpooledReport renders the same two reports for a diff that hands it its entries as it finds
// them (DiffOptions::sink): each entry is rendered at once into a temporary file and dropped, so
// the report of two unrelated 100 MB sessions costs disk, not memory; finish() then writes the
// report, byte for byte what render_text / render_json write for the same diff with its entries
// kept (tests/unit/differ_test.cpp holds the two to that).
#pragma once

#include "msptk/differ/diff.hpp"

#include <boost/json/value.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

namespace msptk {

struct TextStyle {
  bool color = false;               // ANSI colors
  std::size_t max_value_chars = 160;  // longer values are cut with "…"
};

// "divergent: 19 frames (16 identical, 0 equivalent, 1 divergent, 1 missing, 1 extra, 0 moved)"
std::string summary_line(Verdict verdict, const DiffCounts& counts);

void render_text(std::ostream& out, const DiffReport& report, const TextStyle& style = {});

boost::json::value to_json(const DiffResult& result);
boost::json::value to_json(const DiffReport& report);
void render_json(std::ostream& out, const DiffReport& report);

enum class ReportFormat { text, json };

class SpooledReport final : public EntrySink {
 public:
  // Spools into an unlinked file in the temporary folder (TMPDIR); an error when none can be
  // created (a caller can still diff with the entries kept and render_text / render_json).
  static Result<std::unique_ptr<SpooledReport>> create(ReportFormat format, TextStyle style = {});
  // Spools into `file` (opened for reading and writing; owned, closed on destruction).
  SpooledReport(ReportFormat format, TextStyle style, std::FILE* file);
  ~SpooledReport() override;
  SpooledReport(const SpooledReport&) = delete;
  SpooledReport& operator=(const SpooledReport&) = delete;

  void begin() override;
  void entry(const DiffResult& result, DiffEntry&& entry) override;

  // An entry could not be written (a full disk): finish() would fail before writing anything.
  bool failed() const { return failed_.has_value(); }

  // Writes the whole report of `report`, whose comparisons are those the sink saw begin, in order,
  // with their entries spooled here (render_text / render_json of the same report with entries).
  Result<void> finish(std::ostream& out, const DiffReport& report);

 private:
  Result<void> copy(std::ostream& out, std::size_t comparison);

  ReportFormat format_;
  TextStyle style_;
  std::FILE* file_;
  std::vector<long> starts_;         // spool offset where each comparison's entries begin
  std::vector<std::size_t> counts_;  // entries spooled per comparison (json: comma placement)
  std::string buffer_;
  std::optional<Error> failed_;      // the first write that failed
};

}  // namespace msptk
