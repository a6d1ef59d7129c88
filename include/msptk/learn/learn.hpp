// Learning a corpus's declarations (`msptk learn REC1 REC2 [REC...]`): from two or more
// recordings of the same script against a host that is not fully seeded, the paths whose values
// differ between the runs, each with how it is to be compared, and the proof that they are right.
//
// Every frame of the recordings is walked side by side (the same number of frames, the same
// direction and method at each line: else the difference cannot be declared away). Each value
// that differs between runs names a path (its location with array indices as `[]`). A path is
//   - `non-negative-integer`, `rfc3339`: every value it took is one (times, durations, counters:
//     erased, the type checked);
//   - `unify`: between every pair of runs its values correspond one to one (minted ids, ids the
//     client echoes, ids inside longer strings that change with them);
//   - `uuid` / `erase`: the rest (typed when every value is a UUID).
// Places msptk always unifies (client request ids, client commandIds, clientInfo) are left out.
// A path whose value differs in some frames and is the same in every run in others would mask
// real data: it is an obstacle, as is a member present in some runs only.
//
// The proof: with the declarations applied, every pair of recordings diffs equivalent, and
// dropping any one declaration makes some pair divergent (declarations that are not needed are
// dropped, so the set is minimal). A unify declaration a diff shows not one-to-one is erased.
// Results are data; render_text writes them; write_declarations writes the manifests'
// `normalize` and the corpus file (normalizer/corpus_file.hpp).
#pragma once

#include "msptk/normalizer/registry.hpp"
#include "msptk/transcript/error.hpp"

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace msptk::learn {

struct Declaration {
  std::string path;
  PathCompare compare;
  std::size_t places = 0;  // places of the first recording where the value differed between runs
  std::string example;     // one place, "transcript.ndjson:LINE location"
};

// What cannot be declared away, with the line it shows on.
struct Obstacle {
  std::string file;
  std::size_t line = 0;
  std::string message;
};

struct LearnResult {
  std::vector<std::filesystem::path> recordings;
  std::vector<Declaration> declarations;  // minimal, proved (empty when there are obstacles)
  std::vector<Obstacle> obstacles;        // non-empty: nothing is declared, exit 1
  std::size_t pairs = 0;                  // pairs of recordings diffed equivalent in the proof
  std::filesystem::path corpus_file;      // the recordings' nearest common folder's corpus file

  bool ok() const { return obstacles.empty(); }
};

// Learns from `recordings` (scenario folders). An unreadable recording is an error; fewer than
// two is a usage error.
Result<LearnResult> learn(const std::vector<std::filesystem::path>& recordings);

// Writes each recording's manifest `normalize` (the learned paths) and adds the declarations to
// result.corpus_file (created when none exists). Nothing is written when !result.ok().
Result<void> write_declarations(const LearnResult& result);

// The nearest folder holding every recording, and the corpus file learn writes for them: the
// one found walking up from it, else a new one there.
std::filesystem::path common_folder(const std::vector<std::filesystem::path>& recordings);

void render_text(std::ostream& out, const LearnResult& result, bool written);

}  // namespace msptk::learn
