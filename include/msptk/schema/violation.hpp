// A Violation is one reason an instance does not satisfy a schema of the bundle, as data:
// where in the instance (`path`, e.g. "result.session.sessionId"), where in the bundle
// (`schema_location`, a JSON pointer such as "#/$defs/Session/properties/sessionId"), which
// constraint failed, and a message in expected-vs-got form ("expected string, got number",
// "missing required member \"decidedAt\""). Violations come from valijson's results, with its
// wrapper errors ("failed to validate property x") dropped and each anyOf/oneOf failure
// narrowed to the alternative the value's type selects, so a finding points at the leaf.
//
// An `enum_value` violation also names the enum (`enum_name`, the `$defs` entry), its
// openness and whether the value is a string: the validator reports an unknown STRING value
// of an open enum as a warning, everything else as an error.
#pragma once

#include <cstddef>
#include <string>

namespace msptk::schema {

enum class Constraint {
  type,
  required,
  enum_value,
  const_value,
  pattern,
  additional_member,
  bounds,      // minimum, maximum, lengths, item and member counts, multipleOf
  dependency,  // dependentRequired / dependencies
  any_of,
  one_of,
  not_,
  format,
  other,
  schema_unusable,  // the bundle's schema could not be compiled
  too_deep,         // the instance nests deeper than kMaxSchemaDepth: not checked
};

// The deepest instance the schema check walks (levels of arrays and objects below the part
// checked). The check is recursive and, with a recursive schema (a $ref cycle), takes time and
// memory growing faster than the depth (measured: 200 levels, 13 s and 100 MiB for one frame);
// MSP frames nest 9 levels in both corpora. A deeper instance is not checked (one too_deep
// violation), and coverage does not walk it.
inline constexpr std::size_t kMaxSchemaDepth = 64;

struct Violation {
  std::string path;             // instance path: root name, then .member and [index]
  std::string schema_location;  // "#/$defs/…" (a JSON pointer fragment into the bundle)
  Constraint constraint = Constraint::other;
  std::string message;          // "expected string, got number"
  // enum_value only:
  std::string enum_name;        // the $defs name, or "" for an inline enum
  bool open_enum = false;       // the enum is marked "x-msp-openness": "open"
  bool string_value = false;    // the rejected value is a JSON string
  std::string value;            // the rejected value as JSON text

  // "PATH: MESSAGE (schema LOCATION)".
  std::string render() const;
};

}  // namespace msptk::schema
