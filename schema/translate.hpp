// The draft 2020-12 → draft 7 rewrite of a bundle, so valijson (a draft-7 validator) checks
// exactly what the bundle says. Internal to the schema module.
//
// Each schema node (reached through the keywords that hold schemas: properties, items, $defs,
// anyOf, …, and the params/result of the method tables) is rewritten in place:
//   dependentRequired {a: [b]}      → dependencies {a: [b]}        (same meaning in draft 7)
//   dependentSchemas {a: S}         → dependencies {a: S}
//   prefixItems [S…] + items T      → items [S…] + additionalItems T
//   $ref R + other assertions       → allOf [{$ref R}] + the other assertions
//                                     (2020-12 applies a $ref's siblings; draft 7 ignores them)
// A 2020-12 keyword with no draft-7 equivalent is an error naming its location.
#pragma once

#include <boost/json/value.hpp>

#include <string>

namespace msptk::schema::detail {

// Rewrites `bundle` in place; returns "" or the first problem ("#/$defs/X uses
// unevaluatedProperties, which …").
std::string translate_to_draft7(boost::json::value& bundle);

}  // namespace msptk::schema::detail
