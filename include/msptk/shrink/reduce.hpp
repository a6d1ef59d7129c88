// The reducer of `msptk shrink`: delta debugging (Zeller's ddmin) over a scenario's units
// (segment.hpp). It asks an Oracle whether a candidate — the handshake and a subset of the
// units, in order — still fails the same way, and converges on a 1-minimal subset: dropping any
// one unit of it makes the failure go away (or the run budget ran out first). The oracle is a
// seam: the real one writes the candidate as a scenario folder and runs replay or a client
// against serve-fixture of it (shrink.hpp); unit tests and the fuzz target pass a predicate.
// Each distinct candidate is asked once (answers are cached).
#pragma once

#include "msptk/transcript/error.hpp"

#include <cstddef>
#include <vector>

namespace msptk::shrink {

class Oracle {
 public:
  virtual ~Oracle() = default;
  // True when the candidate made of these units (indexes, increasing) fails the same way as
  // the original; an error when the peer could not be run at all (shrink stops, exit 3).
  virtual Result<bool> fails_same_way(const std::vector<std::size_t>& units) = 0;
};

struct Reduction {
  std::vector<std::size_t> kept;  // the units of the smallest failing candidate found
  std::size_t runs = 0;           // distinct candidates asked
  bool budget_exhausted = false;  // max_runs was reached before the result was 1-minimal
};

// Reduces `units` units (all of them fail, as the caller checked) within `max_runs` questions.
Result<Reduction> reduce(std::size_t units, Oracle& oracle, std::size_t max_runs);

}  // namespace msptk::shrink
