// A Unifier is the state of one comparison run under a mask: one Bijection per space
// (mask.hpp) and the mask accounting — per declared path, how many values it covered and how
// many of those differed between the two sides (MATCHING.md §4). Frame comparers (differ/)
// call it for every place whose rule is not exact. Not thread-safe; one per run.
#pragma once

#include "msptk/normalizer/bijection.hpp"
#include "msptk/normalizer/mask.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <vector>

namespace msptk {

// Accounting of one declared path.
struct MaskUse {
  std::string path;
  std::size_t covered = 0;   // places the path selected where both sides had a value
  std::size_t differed = 0;  // of those, how many values were not equal
};

class Unifier {
 public:
  explicit Unifier(Masker masker);

  const Masker& masker() const { return masker_; }

  // Compares the two values at a place whose rule is unify or erase (both present): counts them
  // for the declared path, and for unify pairs them in the rule's space. Returns a note naming
  // both pairings when the pairing breaks the bijection.
  std::optional<std::string> compare(const MaskRule& rule, const boost::json::value& expected,
                                     const boost::json::value& actual, std::size_t expected_line,
                                     std::size_t actual_line);

  const Bijection& bijection(std::size_t space) const { return spaces_.at(space); }
  const std::vector<MaskUse>& accounting() const { return accounting_; }

 private:
  Masker masker_;
  std::vector<Bijection> spaces_;
  std::vector<MaskUse> accounting_;
};

}  // namespace msptk
