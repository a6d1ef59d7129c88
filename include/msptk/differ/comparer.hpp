// The FrameComparer is THE comparison engine of msptk (MATCHING.md §1–4): it compares one
// expected frame with one actual frame at a time and holds, for the whole run, the bijections
// and the mask accounting (a Unifier). The offline differ (diff.hpp) feeds it the pairs its
// alignment found; live verbs feed it frames strictly in order (serve-fixture: each live client
// frame against the next recorded client line; replay: each live server frame against the next
// recorded server line). Frames must be fed in transcript order so the pairings are right.
//
// Bytes come first: two frames with the same bytes are `identical` without any structural
// comparison (they are parsed once only to record their unified values, which can still
// conflict with earlier pairings). Otherwise both are parsed and compared structurally —
// member order and whitespace free, numbers by value, a client's trailing CR dropped — with
// masked places compared through their bijection (unify), not at all (erase), or ignored
// (clientInfo.title). No divergence left: `equivalent`; else `divergent`, with one
// PathDivergence per differing place. Not thread-safe.
#pragma once

#include "msptk/normalizer/unifier.hpp"
#include "msptk/transcript/frame.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <vector>

namespace msptk {

// One differing place of a frame.
struct PathDivergence {
  std::string path;                     // concrete location: params.input[0].text; "" = the frame itself
  std::optional<std::string> expected;  // compact JSON text; nullopt = absent on that side
  std::optional<std::string> actual;
  std::string note;                     // why, when the values alone do not say (unification conflicts)
};

enum class FrameOutcome { identical, equivalent, divergent };

std::string_view to_string(FrameOutcome outcome);

struct FrameComparison {
  FrameOutcome outcome = FrameOutcome::identical;
  std::vector<PathDivergence> divergences;  // empty unless divergent
};

class FrameComparer {
 public:
  explicit FrameComparer(MaskSpec spec);

  // Compares the next pair. Frame lines are used in conflict notes.
  FrameComparison compare(const Frame& expected, const Frame& actual);
  // The same, for a caller that has already parsed the expected frame and knows its role: two
  // frames with the same bytes in a role of which the mask masks nothing (Masker::masks_nothing)
  // are identical without being parsed again — there is no unified value to record. Any other
  // pair is compare(expected, actual).
  FrameComparison compare(const Frame& expected, const Frame& actual, const FrameRole& expected_role);
  // What compare(expected, actual) says when ACTUAL (line `actual_line`) has EXPECTED's direction
  // and bytes, for a caller that no longer holds ACTUAL (replay drops a live multi-MiB copy of a
  // recorded frame before the recorded one is parsed): the values EXPECTED holds at unified
  // places are paired with themselves, a conflict with earlier pairings is divergent.
  FrameComparison compare_same(const Frame& expected, std::size_t actual_line) { return absorb(expected, actual_line); }
  // The same for a caller that knows EXPECTED's role (see compare(expected, actual, role)).
  FrameComparison compare_same(const Frame& expected, std::size_t actual_line, const FrameRole& expected_role) {
    if (expected_role.dir == expected.dir && masker().masks_nothing(expected_role)) return FrameComparison{};
    return absorb(expected, actual_line);
  }

  const Masker& masker() const { return unifier_.masker(); }
  // The pairings made so far. Keys are canonical JSON texts (canonical.hpp), so a partner is the
  // exact JSON token to splice into recorded bytes. serve-fixture: the id the client used for
  // the request a recorded response answers is
  //   unifier().bijection(kClientRequestIds).actual_for(canonical_json(recorded_id));
  // replay: the live value of a server-minted value at declared path i is
  //   unifier().bijection(masker().declared_space(Direction::server, i)).actual_for(...).
  const Unifier& unifier() const { return unifier_; }
  const std::vector<MaskUse>& accounting() const { return unifier_.accounting(); }

 private:
  FrameComparison absorb(const Frame& frame, std::size_t actual_line);

  Unifier unifier_;
};

// The clientInfo name and version the actual side sent where the expected side has another
// value (paths params.clientInfo.name / .version, expected and actual canonical JSON): unified,
// so never a divergence, but what a new client version changes first, so reports list them.
std::vector<PathDivergence> client_info_changes(const FrameComparer& comparer);

}  // namespace msptk
