// A JsonPath names the places in a frame whose values may differ between two recordings
// (MATCHING.md §4). Grammar, from the frame root:
//
//   path    := segment ( '.' segment )*
//   segment := ( name | '*' ) ( '[]' )*
//   name    := one or more characters other than '.', '[', ']', '*'
//
// `name` selects a member, `*` every member of an object, `[]` every element of an array:
// `id`, `params.commandId`, `result.session.sessionId`, `params.items[].id`, `result.*.updatedAt`.
// Matching yields each matched value with its concrete location (`params.items[0].id`). A
// member whose name a path cannot spell (empty, or holding '.', '[', ']' or '*': a file name,
// a URL) is written as a JSON string in brackets, `result["a.txt"].updatedAt`, so that every
// location reads back as exactly the steps that lead to it.
#pragma once

#include "msptk/transcript/error.hpp"

#include <boost/json/value.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk {

class JsonPath {
 public:
  struct Step {
    enum class Kind { member, any_member, each_element } kind;
    std::string name;  // member only
  };

  // Parses `text`; an error names the path and the 1-based character position.
  static Result<JsonPath> parse(std::string_view text);

  const std::string& text() const { return text_; }
  const std::vector<Step>& steps() const { return steps_; }

  // Calls `visit(value, concrete_location)` for every value the path selects in `root`.
  void for_each_match(const boost::json::value& root,
                      const std::function<void(const boost::json::value&, const std::string&)>& visit) const;
  void for_each_match(boost::json::value& root,
                      const std::function<void(boost::json::value&, const std::string&)>& visit) const;

  // True when the concrete location (as for_each_match reports it) is selected by this path.
  bool matches_location(std::string_view location) const;

  bool operator==(const JsonPath& other) const { return text_ == other.text_; }

 private:
  std::string text_;
  std::vector<Step> steps_;
};

// Renders a location step: ".name" (or "name" at the root), `["a.b"]` for a name a path cannot
// spell, and "[3]". push_member appends in place.
void push_member(std::string& location, std::string_view name);
std::string append_member(const std::string& location, std::string_view name);
std::string append_index(const std::string& location, std::size_t index);

}  // namespace msptk
