// Renderers of a wire log's analysis (wire_log.hpp): the chunk table `msptk wire-log FILE`
// prints, its JSON form, and the result of checking the rebuilt frames against a transcript.
#pragma once

#include "msptk/wirelog/wire_log.hpp"

#include <iosfwd>
#include <string>

namespace msptk::wirelog {

// One row per chunk (seq, dir, time, gap, bytes, frames it completed, where it cut a frame),
// then a summary line per direction.
void render_table(std::ostream& out, const std::string& file, const WireAnalysis& analysis);
// {"file","chunks":[{seq,dir,tMicros,gapMicros,bytes,framesCompleted,emptyLines,openBytes,
//   splitsCodePoint}],"client":{totals},"server":{totals},"largestGap":{micros,beforeSeq},
//  "check":{"transcript","compared","same","mismatches":[{line,frame,message}],"more"} | null}
void render_json(std::ostream& out, const std::string& file, const WireAnalysis& analysis,
                 const RebuildCheck* check, const std::string& transcript);
// "FILE: 12 frames rebuilt, identical to TRANSCRIPT" or one line per mismatch (TRANSCRIPT:LINE).
void render_check(std::ostream& out, const std::string& file, const RebuildCheck& check, const std::string& transcript);

}  // namespace msptk::wirelog
