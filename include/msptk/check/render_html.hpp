// The HTML form of a check run (`msptk check … --html FILE`): one self-contained page
// (html/page.hpp) holding the same data as `--json` (report_json.hpp), read as Playwright's
// report is: the verdict and summary line, a bar of the statuses' shares, tabs that filter the
// scenarios by status (all, failed — failures and errors —, passed, skipped, expected failures;
// also `#filter=failed` in the address), the host and corpora on one line, then a section per
// scenario — failures first, then errors, expected failures, skips and passes, each group in run
// order —, its summary line holding its status, name, time and reason (said once), expanding to
// its validation findings, the replay's problem, how the host ended and the tail of its stderr
// (wrapped; a line that is JSON pretty-printed), and the diff of the recording against the
// golden scenario as differ/html.hpp renders it. Failures and errors are expanded, so the first
// failure and its diff are on the first screen. Written while the run's recordings still exist,
// so the diffs show the recorded frames; a recording not kept (no --keep) is named, not linked,
// and the page says --keep DIR keeps them; a report merged from shards names recordings that may
// be gone, and the diffs then say so.
#pragma once

#include "msptk/check/outcome.hpp"

#include <ostream>

namespace msptk::check {

void render_html(std::ostream& out, const CheckReport& report);

}  // namespace msptk::check
