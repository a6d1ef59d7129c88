// A Pattern is a JSON Schema regular expression (`pattern`, `patternProperties`: ECMA-262
// syntax) matched in time linear in the text and with no recursion on it. std::regex (which
// valijson uses) backtracks and recurses once per character: a string of a few tens of
// thousands of characters at a place with a `pattern` overflowed the stack (SIGSEGV).
//
// A pattern compiles to a Thompson NFA run as a Pike VM over the text's code points (UTF-8
// decoded; a byte that is not UTF-8 is a code point of its own): every position is read once
// with at most one thread per NFA state, so a search costs O(text × pattern) whatever the
// pattern. Supported: literals and escapes (\n \t \r \f \v \0 \xHH \uHHHH \u{H…} \/ \. …),
// `.`, classes `[a-z…]` and `[^…]` with \d \D \w \W \s \S in and out of them, `^` `$` (the
// whole text: JSON Schema sets no multiline flag), `\b` `\B`, groups `(…)` `(?:…)` `(?<name>…)`,
// alternation, and the quantifiers `*` `+` `?` `{n}` `{n,}` `{n,m}` (lazy or greedy: the same
// for a yes/no match). Back-references and lookaround have no linear matcher: compile refuses
// them, naming what it found, and so does a pattern whose counted repetitions would make an
// NFA of more than kMaxStates states.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace msptk::schema {

class Pattern {
 public:
  static constexpr std::size_t kMaxStates = 20000;

  // The compiled pattern, or why it cannot be matched linearly ("a back-reference (\1)").
  static std::variant<Pattern, std::string> compile(std::string_view pattern);

  // True when the pattern matches somewhere in `text` (ECMA-262 RegExp.prototype.test).
  bool search(std::string_view text) const;

  struct Program;

 private:
  std::shared_ptr<const Program> program_;
};

namespace detail {

// True when `pattern` matches somewhere in `text`; each pattern is compiled once per thread. A
// pattern the linear matcher refuses never gets here (the bundle is refused when it is loaded:
// translate.hpp); should one, it matches nothing.
bool pattern_matches(const std::string& pattern, std::string_view text);

}  // namespace detail

}  // namespace msptk::schema
