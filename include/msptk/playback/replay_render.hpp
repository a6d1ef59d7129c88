// Renderers of a ReplayResult. The text report is the differ's (render.hpp: one block per
// server frame that is not identical, the mask accounting, warnings, the verdict line over the
// compared server frames), then one line per value carried into a client line, and as its last
// line the outcome:
//   replay passed: 12 server frames checked, 7 client lines sent; the host exited with code 0
//   replay failed: a/transcript.ndjson:9: timed out after 10000 ms waiting for server response to turn/start
// The JSON renderer writes one document (kind "msptkReplay"; README "replay" describes it) whose
// `comparison` member is the differ's comparison object (docs/diff-json.md).
#pragma once

#include "msptk/differ/render.hpp"
#include "msptk/playback/replay.hpp"

#include <boost/json/value.hpp>

#include <ostream>

namespace msptk {

// "replay passed: ..." / "replay failed: <problem>"
std::string replay_outcome_line(const ReplayResult& result);

void render_replay_text(std::ostream& out, const ReplayResult& result, const TextStyle& style = {});

boost::json::value to_json(const ReplayResult& result);
void render_replay_json(std::ostream& out, const ReplayResult& result);

}  // namespace msptk
