// record_script is `msptk record --script`: the recorder's record() (recorder/recorder.hpp) with
// a Player (player.hpp) in the place of the client. The player runs on a thread of its own and
// talks over two pipes that record() takes as the client's stdin and stdout (RecordEnv's
// wiring), so every frame goes through the same Tee, pins, environment, redaction, wire log and
// stop ladder as a client's: the scenario folder is what a client sending the same frames
// through `msptk record` would leave. When the script ends (played, or stopped by a step that
// could not complete) the player closes its side, the host's stdin is closed, and the session
// ends as record's does. The manifest gets `seeds.commandIdSeed` and in `capture`:
//   "status": "complete" | "incomplete"   (incomplete: the script stopped at a step)
//   "script": { "file": "...", "sha256": "<64 hex>", "steps": N, "stepsPlayed": N,
//               "failure": null | { "line": N, "rule": "script.timeout", "message": "..." } }
#pragma once

#include "msptk/recorder/recorder.hpp"
#include "msptk/script/player.hpp"
#include "msptk/script/script.hpp"

namespace msptk::script {

struct ScriptedRecordOutcome {
  recorder::RecordOutcome record;
  PlayOutcome play;
};

// Errors are record()'s (before the host runs: usage, unreadable, spawn) and pipe creation.
Result<ScriptedRecordOutcome> record_script(const Script& script, const recorder::RecordOptions& options,
                                            const PlayOptions& play_options, recorder::RecordEnv& env);

}  // namespace msptk::script
