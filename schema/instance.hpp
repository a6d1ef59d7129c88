// Instances as valijson sees them. Internal to the schema module.
//
// valijson's Boost.JSON adapter counts only int64 values as integers and int64/double as
// numbers; JSON Schema 2020-12 counts every number with a zero fractional part as an integer.
// msptk's strict parser keeps numbers exactly (uint64 beyond int64, and "exact numbers" — a
// string holding the marker byte 0xFF and the token — for values a double cannot hold). So an
// instance holding a uint64, an exact number or an integral double (1.0) is validated through
// a surrogate copy in which each such number is replaced by a value valijson types the same
// way 2020-12 does, on the same side of every bound the bundle can state:
//   integral and within int64            → that int64          (1.0 → 1)
//   integral beyond int64 (uint64, 1e400) → INT64_MAX / INT64_MIN
//   not integral                          → the nearest double, never 0 or infinite
// Messages are always phrased from the original instance.
#pragma once

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace msptk::schema::detail {

// The strict parser's number kinds (transcript/json_parse.hpp), for valijson's sake.
bool is_exact_number(const boost::json::value& v);
bool is_number(const boost::json::value& v);
bool is_string(const boost::json::value& v);  // a JSON string (not an exact number)

// "object", "array", "string", "boolean", "null", "integer" or "number" (2020-12 type names).
std::string_view type_name(const boost::json::value& v);

// The JSON text of a value, exact numbers as their token; long texts cut at `limit` bytes.
std::string json_text(const boost::json::value& v, std::size_t limit = 80);

// The surrogate copy of `instance`, or nullopt when valijson can validate it as it is.
std::optional<boost::json::value> surrogate(const boost::json::value& instance);

}  // namespace msptk::schema::detail
