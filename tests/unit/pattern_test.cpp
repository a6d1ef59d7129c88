// schema::Pattern: JSON Schema (ECMA-262) patterns matched in linear time without recursion on
// the text, what it refuses, and the bundle's pattern, patternProperties, propertyNames and
// format checks on megabyte strings (std::regex recursed per character there: SIGSEGV).
#include "msptk/schema/bundle.hpp"
#include "msptk/schema/pattern.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <string>
#include <variant>

namespace msptk::schema {
namespace {

namespace json = boost::json;

bool test(std::string_view pattern, std::string_view text) {
  auto compiled = Pattern::compile(pattern);
  if (auto* why = std::get_if<std::string>(&compiled)) {
    ADD_FAILURE() << pattern << ": " << *why;
    return false;
  }
  return std::get<Pattern>(compiled).search(text);
}

std::string refused(std::string_view pattern) {
  auto compiled = Pattern::compile(pattern);
  auto* why = std::get_if<std::string>(&compiled);
  return why ? *why : std::string();
}

TEST(Pattern, MatchesAsEcmaScriptTestDoes) {
  struct Case {
    const char* pattern;
    const char* text;
    bool match;
  };
  const Case cases[] = {
      {"^[a-z0-9_]+$", "conformance_2", true},  {"^[a-z0-9_]+$", "Bad Name", false},
      {"^[a-z0-9_]+$", "", false},               {"^sha256:[0-9a-f]{64}$", "sha256:" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", true},
      {"^sha256:[0-9a-f]{64}$", "sha256:0123", false},
      {"b", "abc", true},                        {"^b", "abc", false},
      {"c$", "abc", true},                       {"a$", "abc", false},
      {"^(cat|dog)s?$", "dogs", true},           {"^(cat|dog)s?$", "cow", false},
      {"^(?:ab)+$", "ababab", true},             {"^(?:ab)+$", "ababa", false},
      {"^a{2,3}$", "aa", true},                  {"^a{2,3}$", "aaaa", false},
      {"^a{2,}$", "aaaaa", true},                {"^a{2}$", "a", false},
      {"^\\d+\\.\\d+$", "3.14", true},           {"^\\d+\\.\\d+$", "3x14", false},
      {"^\\w+$", "a_B9", true},                  {"^\\W$", "-", true},
      {"^\\s*$", " \t\n", true},                 {"^\\S+$", "a b", false},
      {"^[^/]+$", "a/b", false},                 {"^[\\d-]+$", "1-2", true},
      {"^[a\\-z]+$", "-", true},                 {"^[a\\-z]+$", "b", false},
      {"^.$", "\n", false},                      {"^.$", "\xc3\xa9", true},
      {"^[\\u00e0-\\u00ff]$", "\xc3\xa9", true}, {"^\\x41$", "A", true},
      {"\\bcat\\b", "a cat!", true},             {"\\bcat\\b", "concat", false},
      {"^(?<year>\\d{4})-\\d{2}$", "2026-12", true},
      {"^a{,2}$", "a{,2}", true},                {"^x]$", "x]", true},
      {"^(a*)*b$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
      {"^(a|aa)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", false},
      {"", "anything", true},                    {"a|", "b", true},
  };
  for (const Case& c : cases) EXPECT_EQ(test(c.pattern, c.text), c.match) << c.pattern << " on " << c.text;
}

TEST(Pattern, RefusesWhatHasNoLinearMatcherNamingIt) {
  EXPECT_NE(refused("^(a)\\1$").find("back-reference"), std::string::npos);
  EXPECT_NE(refused("^(?<n>a)\\k<n>$").find("back-reference"), std::string::npos);
  EXPECT_NE(refused("^(?=a)").find("lookaround"), std::string::npos);
  EXPECT_NE(refused("(?<!a)b").find("lookaround"), std::string::npos);
  EXPECT_NE(refused("\\p{L}").find("property"), std::string::npos);
  EXPECT_NE(refused("(a{1000}){1000}").find("states"), std::string::npos);
  EXPECT_NE(refused(std::string(1000, '(') + std::string(1000, ')')).find("nested"), std::string::npos);
  EXPECT_FALSE(refused("*a").empty());
  EXPECT_FALSE(refused("(a").empty());
  EXPECT_FALSE(refused("a)").empty());
  EXPECT_FALSE(refused("[a").empty());
  EXPECT_FALSE(refused("a{3,1}").empty());
}

TEST(Pattern, MegabyteTextsAreMatchedWithoutRecursion) {
  const std::string mb(std::size_t{1} << 20, 'a');
  EXPECT_TRUE(test("^[a-z0-9_]+$", mb));
  EXPECT_FALSE(test("^[a-z0-9_]+$", mb + " "));
  EXPECT_TRUE(test("a$", mb));
  EXPECT_FALSE(test("b", mb));
  EXPECT_FALSE(test("^(a|aa)*c$", mb));
  EXPECT_TRUE(test("(.*)*a", mb));
}

// A bundle whose method "m" has `params` = `schema`.
Bundle bundle_with(const std::string& schema) {
  return Bundle::from_json(json::parse(R"({"methods":{"m":{"params":)" + schema + R"(}},"notifications":{}})"), "p.json")
      .value();
}

std::vector<Violation> check(const Bundle& b, const json::value& instance) {
  return b.validate(*b.schema_pointer(Table::methods, "m", "params"), instance, "params");
}

TEST(Pattern, BundlesCheckMegabyteStringsAndNamesWithoutRecursion) {
  const std::string mb(std::size_t{1} << 20, 'a');
  Bundle pattern = bundle_with(R"({"properties":{"name":{"type":"string","pattern":"^[a-z0-9_]+$"}}})");
  EXPECT_TRUE(check(pattern, json::object{{"name", mb}}).empty());
  auto bad = check(pattern, json::object{{"name", mb + "!"}});
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].constraint, Constraint::pattern);
  EXPECT_EQ(bad[0].path, "params.name");

  Bundle names = bundle_with(R"({"type":"object","patternProperties":{"^x-[a-z]+$":{"type":"integer"}},
                                 "additionalProperties":false})");
  EXPECT_TRUE(check(names, json::object{{"x-" + mb, 1}}).empty());
  auto wrong = check(names, json::object{{"x-" + mb, "one"}});
  ASSERT_FALSE(wrong.empty());
  EXPECT_EQ(check(names, json::object{{"y-" + mb, 1}}).size(), 1u);  // not a pattern property: additional

  Bundle property_names = bundle_with(R"({"type":"object","propertyNames":{"pattern":"^[a-z]+$"}})");
  EXPECT_TRUE(check(property_names, json::object{{mb, 1}}).empty());
  // valijson 1.0 reports a failed propertyNames without an error text (the frame passed): the
  // specialized visit names each failing member name, cut.
  const auto failed = check(property_names, json::object{{mb + "1", 1}, {"ok", 2}, {"B", 3}});
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_NE(failed[0].message.find("(cut) does not validate against the schema under \"propertyNames\""), std::string::npos)
      << failed[0].message;
  EXPECT_LT(failed[0].message.size(), 200u);
  EXPECT_EQ(failed[1].message, "member name \"B\" does not validate against the schema under \"propertyNames\"");

  Bundle format = bundle_with(R"({"properties":{"at":{"type":"string","format":"date-time"},
                                                "day":{"type":"string","format":"date"},
                                                "t":{"type":"string","format":"time"}}})");
  EXPECT_TRUE(check(format, json::parse(R"({"at":"2026-12-01T23:59:60.5+01:00","day":"2024-02-29","t":"00:00:00z"})")).empty());
  EXPECT_EQ(check(format, json::object{{"at", std::string(1 << 20, '1') + "-01-01T00:00:00Z"}}).size(), 0u);
  EXPECT_EQ(check(format, json::object{{"at", std::string(1 << 20, '1')}}).size(), 1u);
  EXPECT_EQ(check(format, json::parse(R"({"day":"2026-04-31"})")).size(), 1u);
  EXPECT_EQ(check(format, json::parse(R"({"day":"2026-13-01"})")).size(), 1u);
  EXPECT_EQ(check(format, json::parse(R"({"t":"24:00:00Z"})")).size(), 1u);
  EXPECT_EQ(check(format, json::parse(R"({"t":"12:00:00"})")).size(), 1u);
}

TEST(Pattern, ABundleWithAPatternItCannotMatchLinearlyIsRefusedWhenLoaded) {
  auto b = Bundle::from_json(json::parse(R"({"methods":{"m":{"params":{"properties":{"a":{"pattern":"^(x)\\1$"}}}}},
                                             "notifications":{}})"),
                             "b.json");
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().rule, "schema.bundle");
  EXPECT_NE(b.error().message.find("#/methods/m/params/properties/a/pattern"), std::string::npos) << b.error().message;
  EXPECT_NE(b.error().message.find("back-reference"), std::string::npos) << b.error().message;
  auto names = Bundle::from_json(json::parse(R"x({"methods":{},"notifications":{"n":{"params":{
                                                   "patternProperties":{"(?=a)":{}}}}}})x"),
                                 "b.json");
  ASSERT_FALSE(names);
  EXPECT_NE(names.error().message.find("#/notifications/n/params/patternProperties/(?=a)"), std::string::npos)
      << names.error().message;
}

}  // namespace
}  // namespace msptk::schema
