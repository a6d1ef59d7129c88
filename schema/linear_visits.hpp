// valijson's visits that read strings with std::regex, replaced for the adapters msptk
// validates with: `pattern` (instance strings), `patternProperties` (member names) and
// `format` (date, time, date-time), plus `propertyNames`, whose failure valijson 1.0 reports with
// no error text (so a failing member name gave no Violation and the frame passed: now it names
// each member name that fails). std::regex backtracks and recurses once per character, so
// a long string (tens of thousands of characters) at such a place overflowed the stack. These
// explicit specializations of ValidationVisitor's members match with schema::Pattern (linear,
// no recursion on the text: pattern.hpp) and the formats with a hand scan, and otherwise do
// exactly what valijson 1.0's own members do (same results, same error texts, which
// bundle.cpp maps onto Violations). Internal to the schema module: included by bundle.cpp right
// after valijson's headers, before anything instantiates a ValidationVisitor.
#pragma once

#include "format.hpp"
#include "msptk/schema/pattern.hpp"

#include <valijson/adapters/boost_json_adapter.hpp>
#include <valijson/adapters/std_string_adapter.hpp>
#include <valijson/validation_visitor.hpp>

#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

#include <string>
#include <string_view>

namespace msptk::schema::detail {

// The error text of a member name that fails `propertyNames`: the name as JSON, cut after 60
// bytes at a UTF-8 boundary (a name may be a megabyte long).
inline std::string property_name_error(std::string_view name) {
  std::size_t cut = name.size();
  if (cut > 60) {
    cut = 60;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
  }
  const std::string shown = boost::json::serialize(boost::json::string(name.substr(0, cut)));
  return "Member name " + shown + (cut < name.size() ? " (cut)" : "") +
         " does not validate against the schema under \"propertyNames\"";
}

}  // namespace msptk::schema::detail

#define MSPTK_LINEAR_VISITS(ADAPTER)                                                                              \
  template <>                                                                                                     \
  inline bool ValidationVisitor<ADAPTER>::visit(const constraints::PatternConstraint& constraint) {               \
    if ((m_strictTypes && !m_target.isString()) || !m_target.maybeString()) return true;                          \
    const std::string pattern(constraint.getPattern<std::string::allocator_type>());                             \
    if (msptk::schema::detail::pattern_matches(pattern, m_target.asString())) return true;                        \
    if (m_results) m_results->pushError(m_context, "Failed to match regex specified by 'pattern' constraint.");   \
    return false;                                                                                                 \
  }                                                                                                               \
  template <>                                                                                                     \
  inline bool ValidationVisitor<ADAPTER>::visit(const constraints::FormatConstraint& constraint) {                \
    if ((m_strictTypes && !m_target.isString()) || !m_target.maybeString()) return true;                          \
    const std::string problem = msptk::schema::detail::format_problem(constraint.getFormat(), m_target.asString()); \
    if (problem.empty()) return true;                                                                             \
    if (m_results) m_results->pushError(m_context, problem);                                                      \
    return false;                                                                                                 \
  }                                                                                                               \
  template <>                                                                                                     \
  inline bool ValidationVisitor<ADAPTER>::visit(const constraints::PropertyNamesConstraint& constraint) {         \
    if ((m_strictTypes && !m_target.isObject()) || !m_target.maybeObject()) return true;                          \
    bool validated = true;                                                                                        \
    for (const typename ADAPTER::ObjectMember m : m_target.asObject()) {                                          \
      adapters::StdStringAdapter name(m.first);                                                                   \
      ValidationVisitor<adapters::StdStringAdapter> validator(name, m_context, m_strictTypes, nullptr,             \
                                                              m_regexesCache);                                    \
      if (validator.validateSchema(*constraint.getSubschema())) continue;                                         \
      if (!m_results) return false;                                                                               \
      m_results->pushError(m_context, msptk::schema::detail::property_name_error(m.first));                       \
      validated = false;                                                                                          \
    }                                                                                                             \
    return validated;                                                                                             \
  }                                                                                                               \
  template <>                                                                                                     \
  inline bool ValidationVisitor<ADAPTER>::visit(const constraints::PropertiesConstraint& constraint) {            \
    if ((m_strictTypes && !m_target.isObject()) || !m_target.maybeObject()) return true;                          \
    bool validated = true;                                                                                        \
    std::set<std::string> propertiesMatched;                                                                      \
    const typename ADAPTER::Object object = m_target.asObject();                                                  \
    constraint.applyToProperties(ValidatePropertySubschemas(object, m_context, true, m_results != nullptr, true,  \
                                                            m_strictTypes, m_results, &propertiesMatched,         \
                                                            &validated, m_regexesCache));                         \
    if (!validated && !m_results) return false;                                                                   \
    constraint.applyToPatternProperties([&](const auto& patternProperty, const Subschema* subschema) {            \
      const std::string patternPropertyStr(patternProperty.c_str());                                              \
      for (const typename ADAPTER::ObjectMember m : object) {                                                     \
        if (!msptk::schema::detail::pattern_matches(patternPropertyStr, m.first)) continue;                       \
        propertiesMatched.insert(m.first);                                                                        \
        std::vector<std::string> newContext = m_context;                                                          \
        newContext.push_back("[" + m.first + "]");                                                                \
        ValidationVisitor validator(m.second, newContext, m_strictTypes, m_results, m_regexesCache);              \
        if (validator.validateSchema(*subschema)) continue;                                                       \
        if (m_results)                                                                                            \
          m_results->pushError(m_context,                                                                         \
                               "Failed to validate against schema associated with pattern '" +                    \
                                   patternPropertyStr + "'.");                                                    \
        validated = false;                                                                                        \
        return false; /* valijson stops at the first failing pattern property */                                  \
      }                                                                                                           \
      return true;                                                                                                \
    });                                                                                                           \
    const Subschema* additionalPropertiesSubschema = constraint.getAdditionalPropertiesSubschema();               \
    if (!additionalPropertiesSubschema) {                                                                         \
      if (propertiesMatched.size() != m_target.getObjectSize()) {                                                 \
        if (m_results) {                                                                                          \
          std::string unwanted;                                                                                   \
          for (const typename ADAPTER::ObjectMember m : object) {                                                 \
            if (propertiesMatched.find(m.first) == propertiesMatched.end()) {                                     \
              unwanted = m.first;                                                                                 \
              break;                                                                                              \
            }                                                                                                     \
          }                                                                                                       \
          m_results->pushError(m_context,                                                                         \
                               "Object contains a property that could not be validated using 'properties' or "    \
                               "'additionalProperties' constraints: '" +                                          \
                                   unwanted + "'.");                                                              \
        }                                                                                                         \
        return false;                                                                                             \
      }                                                                                                           \
      return validated;                                                                                           \
    }                                                                                                             \
    for (const typename ADAPTER::ObjectMember m : object) {                                                       \
      if (propertiesMatched.find(m.first) != propertiesMatched.end()) continue;                                   \
      std::vector<std::string> newContext = m_context;                                                            \
      newContext.push_back("[" + m.first + "]");                                                                  \
      ValidationVisitor validator(m.second, newContext, m_strictTypes, m_results, m_regexesCache);                \
      if (!validator.validateSchema(*additionalPropertiesSubschema)) {                                            \
        if (m_results) m_results->pushError(m_context, "Failed to validate against additional properties schema"); \
        validated = false;                                                                                        \
      }                                                                                                           \
    }                                                                                                             \
    return validated;                                                                                             \
  }

namespace valijson {
// The string adapter first: the other's propertyNames visit instantiates it.
MSPTK_LINEAR_VISITS(adapters::StdStringAdapter)
MSPTK_LINEAR_VISITS(adapters::BoostJsonAdapter)
}  // namespace valijson

#undef MSPTK_LINEAR_VISITS
