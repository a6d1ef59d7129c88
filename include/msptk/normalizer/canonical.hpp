// Canonical JSON is the one text a value has regardless of how a peer wrote it: object members
// sorted by name, no whitespace, numbers by value (1, 1.0 and 1e0 are all "1"). Bijections key
// their pairings by it, so two values pair as one exactly when they are structurally equal
// (MATCHING.md §1: member order free, numbers equal when their values are equal).
#pragma once

#include <boost/json/value.hpp>

#include <string>

namespace msptk {

// The canonical text of `value`.
std::string canonical_json(const boost::json::value& value);
void append_canonical_json(std::string& out, const boost::json::value& value);

// True when two scalars (or any two values of different JSON types) are equal by MATCHING.md
// §1: numbers by value, strings exact. Objects and arrays compare equal here only when their
// canonical texts are equal.
bool json_equal(const boost::json::value& a, const boost::json::value& b);

// Compact JSON text exactly as a peer would write it (member order kept): for reports.
std::string compact_json(const boost::json::value& value);

}  // namespace msptk
