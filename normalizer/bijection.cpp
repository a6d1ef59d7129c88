#include "msptk/normalizer/bijection.hpp"

namespace msptk {

std::optional<Bijection::Conflict> Bijection::pair(std::string_view expected, std::string_view actual,
                                                   std::size_t expected_line, std::size_t actual_line) {
  auto e = by_expected_.find(expected);
  auto a = by_actual_.find(actual);
  const bool e_ok = e == by_expected_.end() || e->second.actual == actual;
  const bool a_ok = a == by_actual_.end() || a->second == expected;
  if (e_ok && a_ok) {
    if (e == by_expected_.end()) {
      by_expected_.emplace(std::string(expected),
                           Pairing{std::string(expected), std::string(actual), expected_line, actual_line});
      by_actual_.emplace(std::string(actual), std::string(expected));
      if (expected != actual) identity_ = false;
    }
    return std::nullopt;
  }
  Conflict conflict;
  conflict.attempted = Pairing{std::string(expected), std::string(actual), expected_line, actual_line};
  if (!e_ok) conflict.expected_paired = e->second;
  if (!a_ok) conflict.actual_paired = by_expected_.find(a->second)->second;
  return conflict;
}

const std::string* Bijection::actual_for(std::string_view expected) const {
  auto it = by_expected_.find(expected);
  return it == by_expected_.end() ? nullptr : &it->second.actual;
}

const std::string* Bijection::expected_for(std::string_view actual) const {
  auto it = by_actual_.find(actual);
  return it == by_actual_.end() ? nullptr : &it->second;
}

}  // namespace msptk
