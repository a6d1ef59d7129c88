#include "msptk/normalizer/unifier.hpp"

#include "msptk/normalizer/canonical.hpp"

#include <fmt/format.h>

namespace msptk {

namespace {

std::string lines(const Bijection::Pairing& p) {
  return fmt::format("expected line {} ↔ actual line {}", p.expected_line, p.actual_line);
}

}  // namespace

Unifier::Unifier(Masker masker) : masker_(std::move(masker)), spaces_(masker_.space_count()) {
  for (const JsonPath& path : masker_.spec().declared) accounting_.push_back(MaskUse{path.text(), 0, 0});
}

std::optional<std::string> Unifier::compare(const MaskRule& rule, const boost::json::value& expected,
                                             const boost::json::value& actual, std::size_t expected_line,
                                             std::size_t actual_line) {
  if (rule.treatment != Treatment::unify && rule.treatment != Treatment::erase) return std::nullopt;
  std::string e = canonical_json(expected);
  std::string a = canonical_json(actual);
  if (rule.declared >= 0) {
    MaskUse& use = accounting_[static_cast<std::size_t>(rule.declared)];
    ++use.covered;
    if (e != a) ++use.differed;
  }
  if (rule.treatment == Treatment::erase) {
    if (rule.declared < 0) return std::nullopt;
    const std::size_t index = static_cast<std::size_t>(rule.declared);
    const ValueCheck check = masker_.spec().compare_of(index).check;
    const bool e_ok = satisfies(check, expected), a_ok = satisfies(check, actual);
    if (e_ok && a_ok) return std::nullopt;
    return fmt::format("{} is erased but must be {} (its declaration): {}", masker_.spec().declared[index].text(),
                       to_string(check),
                       !e_ok && !a_ok ? fmt::format("expected {} and actual {} are not", e, a)
                       : !e_ok        ? fmt::format("expected {} is not", e)
                                      : fmt::format("actual {} is not", a));
  }
  auto conflict = spaces_[rule.space].pair(e, a, expected_line, actual_line);
  if (!conflict) return std::nullopt;
  std::string note = fmt::format("{} must pair one-to-one: expected {} ↔ actual {} here, but", masker_.space_name(rule.space),
                                 e, a);
  if (const auto& p = conflict->expected_paired) {
    note += fmt::format(" expected {} is already paired with actual {} ({})", e, p->actual, lines(*p));
  }
  if (const auto& p = conflict->actual_paired) {
    note += fmt::format("{} actual {} is already paired with expected {} ({})", conflict->expected_paired ? " and" : "",
                        a, p->expected, lines(*p));
  }
  return note;
}

}  // namespace msptk
