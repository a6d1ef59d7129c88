// The formats valijson asserts, by hand (format.hpp).
#include "format.hpp"

namespace msptk::schema::detail {

namespace {

// Reads a fixed number of digits at `i` as a number, or -1.
int fixed_digits(std::string_view s, std::size_t& i, std::size_t n) {
  if (i + n > s.size()) return -1;
  int v = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const char c = s[i + k];
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  i += n;
  return v;
}

bool expect(std::string_view s, std::size_t& i, char c) {
  if (i >= s.size() || s[i] != c) return false;
  ++i;
  return true;
}

// digits+ '-' MM '-' DD at `i`; month and day in range (valijson's rule).
bool date_at(std::string_view s, std::size_t& i) {
  const std::size_t start = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == start || !expect(s, i, '-')) return false;
  const int month = fixed_digits(s, i, 2);
  if (month < 1 || month > 12 || !expect(s, i, '-')) return false;
  const int day = fixed_digits(s, i, 2);
  if (day < 1 || day > 31) return false;
  if (month == 2) return day <= 29;
  const bool thirty = month <= 7 ? month % 2 == 0 : month % 2 != 0;
  return day <= (thirty ? 30 : 31);
}

// HH:MM:SS(.fraction)?(Z|z|±HH:MM) at `i`.
bool time_at(std::string_view s, std::size_t& i) {
  const int h = fixed_digits(s, i, 2);
  if (h < 0 || h > 23 || !expect(s, i, ':')) return false;
  const int m = fixed_digits(s, i, 2);
  if (m < 0 || m > 59 || !expect(s, i, ':')) return false;
  const int sec = fixed_digits(s, i, 2);
  if (sec < 0 || sec > 60) return false;
  if (i < s.size() && s[i] == '.') {
    const std::size_t start = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == start) return false;
  }
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
    return true;
  }
  if (i >= s.size() || (s[i] != '+' && s[i] != '-')) return false;
  ++i;
  const int oh = fixed_digits(s, i, 2);
  if (oh < 0 || oh > 23 || !expect(s, i, ':')) return false;
  const int om = fixed_digits(s, i, 2);
  return om >= 0 && om <= 59;
}

}  // namespace

std::string format_problem(std::string_view format, std::string_view text) {
  std::size_t i = 0;
  if (format == "date") return date_at(text, i) && i == text.size() ? "" : "String should be a valid date";
  if (format == "time") return time_at(text, i) && i == text.size() ? "" : "String should be a valid time";
  if (format == "date-time") {
    const bool ok = date_at(text, i) && i < text.size() && (text[i] == 'T' || text[i] == 't') && time_at(text, ++i) &&
                    i == text.size();
    return ok ? "" : "String should be a valid date-time";
  }
  return "";
}

}  // namespace msptk::schema::detail
