// The string formats valijson asserts (`format`: date, time, date-time), checked by a hand scan
// in one pass: valijson matched them with std::regex, which recursed once per character of a
// long string. The rules are valijson 1.0's: a date is digits-MM-DD (MM 01..12, DD within the
// month, February up to 29), a time HH:MM:SS (SS up to 60) with an optional fraction and a `Z`
// or ±HH:MM offset, a date-time a date, `T` (or `t`) and a time; any other format name is not
// checked. Internal to the schema module.
#pragma once

#include <string>
#include <string_view>

namespace msptk::schema::detail {

// "" when `text` is a valid `format`, else valijson's message ("String should be a valid date").
std::string format_problem(std::string_view format, std::string_view text);

}  // namespace msptk::schema::detail
