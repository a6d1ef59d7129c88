// A Reference is a script's way to use a value the host sent earlier (script.hpp): a JSON string
// "${NAME:PATH}" (the response to the request step named NAME) or "${last METHOD:PATH}" (the
// latest server frame of METHOD), PATH in normalize's JsonPath grammar. The whole string is the
// reference, and it is replaced by the value found there, whatever its JSON type; "$${..." is
// the literal string "${...". Only values are looked at (object member names never are).
#pragma once

#include "msptk/normalizer/path.hpp"
#include "msptk/transcript/error.hpp"

#include <boost/json/value.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace msptk::script {

struct Reference {
  bool last = false;  // ${last METHOD:PATH}
  std::string name;   // the step name, or the method
  JsonPath path;
  std::string text;   // as written
};

// Why a string is not a well-formed reference: which rule and what to say.
struct ReferenceProblem {
  std::string rule;  // script.reference or script.path
  std::string message;
};

// nullopt: `text` is a plain string (no reference). A string that starts with "${" must be a
// whole, well-formed reference.
boost::system::result<std::optional<Reference>, ReferenceProblem> parse_reference(std::string_view text);

// Calls `visit` for every string value of `value` (depth first, document order) that starts with "${".
void for_each_reference_string(const boost::json::value& value, const std::function<void(std::string_view)>& visit);

// `value` with every reference replaced by what `resolve` gives for it and "$${" unescaped.
// The value must have been checked (parse_script did): a malformed reference here is a bug.
using Resolver = std::function<Result<boost::json::value>(const Reference&)>;
Result<boost::json::value> resolve_references(const boost::json::value& value, const Resolver& resolve);

}  // namespace msptk::script
