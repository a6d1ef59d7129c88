#include "msptk/transcript/redaction.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace msptk {

std::string redaction_placeholder(std::size_t n) { return fmt::format("<redacted:{}>", n); }

bool is_redaction_placeholder(std::string_view text) {
  constexpr std::string_view prefix = "<redacted:";
  if (text.size() <= prefix.size() + 1 || text.substr(0, prefix.size()) != prefix || text.back() != '>') return false;
  std::string_view digits = text.substr(prefix.size(), text.size() - prefix.size() - 1);
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace msptk
