// The HTML form of a check run (`msptk check … --html FILE`): one self-contained page
// (html/page.hpp) holding the same data as `--json` (report_json.hpp): the summary line, the
// host and corpora, a table with a row per scenario and its status (PASS, FAIL, XFAIL, SKIP,
// ERROR) — failures first, then errors, expected failures, skips and passes, each group in run
// order — and a section per scenario: its reason, its validation findings, the replay's problem,
// how the host ended and the tail of its stderr, and the diff of the recording against the
// golden scenario as differ/html.hpp renders it (the expected and actual frames side by side,
// the differing places highlighted). Failures and errors are expanded, the others folded.
// Written while the run's recordings still exist, so the diffs show the recorded frames; a
// report merged from shards names recordings that may be gone, and the diffs then say so.
#pragma once

#include "msptk/check/outcome.hpp"

#include <ostream>

namespace msptk::check {

void render_html(std::ostream& out, const CheckReport& report);

}  // namespace msptk::check
