// A redaction placeholder is the string `msptk record --redact PATH` writes in place of a
// secret: "<redacted:N>", N numbering the distinct values of one recording from 1. It is part
// of the scenario format: validate notes schema findings at placeholders instead of failing
// them, serve-fixture --accept-redacted pairs a client's value with one.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace msptk {

// "<redacted:N>".
std::string redaction_placeholder(std::size_t n);
// True when `text` is a placeholder ("<redacted:" digits ">").
bool is_redaction_placeholder(std::string_view text);

}  // namespace msptk
