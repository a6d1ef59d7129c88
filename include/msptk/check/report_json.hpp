// The JSON form of a check run (`--json FILE`, schema in docs/check-json.md), reading it back,
// and merging the reports of the shards of one run (`msptk check --merge-reports`).
//
// A report read back is the report that was written: to_json(read(to_json(r))) == to_json(r).
// Merging: reports that are all shards (K/N) of one run (same N, same corpora, same total)
// merge into the whole run — every shard exactly once, the scenarios back in run order — and
// reports of separate runs (no shard) are concatenated in the order given. Mixing the two, a
// shard given twice or missing, or a scenario in two reports is a `malformed` error.
#pragma once

#include "msptk/check/outcome.hpp"
#include "msptk/transcript/error.hpp"

#include <boost/json/value.hpp>

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace msptk::check {

boost::json::value to_json(const ScenarioOutcome& outcome);
boost::json::value to_json(const CheckReport& report);
// Indented, with a final newline.
void render_json(std::ostream& out, const CheckReport& report);

// Parses a report document; errors are `malformed` and name `file` and the member.
Result<CheckReport> report_from_json(const boost::json::value& json, const std::string& file);
Result<CheckReport> read_report(const std::filesystem::path& file);

// `files` name the reports in errors (same size as `reports`).
Result<CheckReport> merge_reports(std::vector<CheckReport> reports, const std::vector<std::string>& files);

}  // namespace msptk::check
