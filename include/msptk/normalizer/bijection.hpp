// A Bijection pairs the values one recording has at a place with the values another recording
// has there, one-to-one, for a whole run (MATCHING.md §2). The first sighting of an expected
// value pairs it with the actual value seen with it; from then on the expected value must
// always come with that actual value and the actual value with that expected value. Two
// identities collapsing into one, or one splitting into two, is a conflict. Values are keyed
// by their canonical JSON text (canonical.hpp). A conflicting pairing is reported and not
// recorded, so one bad frame does not poison the rest of the run.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace msptk {

class Bijection {
 public:
  // One pairing and where it was first seen (1-based lines; 0 when unknown).
  struct Pairing {
    std::string expected, actual;
    std::size_t expected_line = 0, actual_line = 0;
  };

  // Why a pairing was refused: the pairing already held by the expected value and/or the one
  // already held by the actual value.
  struct Conflict {
    Pairing attempted;
    std::optional<Pairing> expected_paired;  // expected value already paired with another actual
    std::optional<Pairing> actual_paired;    // actual value already paired with another expected
  };

  // Records (or confirms) expected ↔ actual; returns the conflict when it breaks the bijection.
  std::optional<Conflict> pair(std::string_view expected, std::string_view actual, std::size_t expected_line = 0,
                               std::size_t actual_line = 0);

  // The partner of a value, when it has been seen.
  const std::string* actual_for(std::string_view expected) const;
  const std::string* expected_for(std::string_view actual) const;

  std::size_t size() const { return by_expected_.size(); }
  // Every pairing, by expected value (ordered by its canonical text).
  const std::map<std::string, Pairing, std::less<>>& pairings() const { return by_expected_; }
  bool identity() const { return identity_; }  // every pairing so far maps a value to itself

 private:
  std::map<std::string, Pairing, std::less<>> by_expected_;
  std::map<std::string, std::string, std::less<>> by_actual_;  // actual → expected
  bool identity_ = true;
};

}  // namespace msptk
