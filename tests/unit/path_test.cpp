#include "msptk/normalizer/path.hpp"
#include "msptk/normalizer/registry.hpp"
#include "test_support.hpp"

#include <boost/json/parse.hpp>

namespace msptk {
namespace {

std::vector<std::string> locations(const char* path, const char* json) {
  auto p = JsonPath::parse(path);
  EXPECT_TRUE(p) << p.error().render();
  std::vector<std::string> out;
  const boost::json::value v = boost::json::parse(json);
  p->for_each_match(v, [&](const boost::json::value&, const std::string& loc) { out.push_back(loc); });
  return out;
}

TEST(JsonPath, MatchesMembersElementsAndWildcards) {
  EXPECT_EQ(locations("id", R"({"id":1})"), std::vector<std::string>{"id"});
  EXPECT_EQ(locations("params.commandId", R"({"params":{"commandId":"c"}})"),
            std::vector<std::string>{"params.commandId"});
  EXPECT_EQ(locations("params.items[].id", R"({"params":{"items":[{"id":1},{"x":2},{"id":3}]}})"),
            (std::vector<std::string>{"params.items[0].id", "params.items[2].id"}));
  EXPECT_EQ(locations("result.*.updatedAt", R"({"result":{"a":{"updatedAt":1},"b":{"updatedAt":2}}})"),
            (std::vector<std::string>{"result.a.updatedAt", "result.b.updatedAt"}));
  EXPECT_TRUE(locations("params.turnId", R"({"params":[1]})").empty());
}

TEST(JsonPath, ParseErrorsNamePathAndPosition) {
  auto bad = JsonPath::parse("params..id");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "bad path \"params..id\" at position 8: unexpected '.'");
  EXPECT_FALSE(JsonPath::parse(""));
  EXPECT_FALSE(JsonPath::parse("a[1]"));
  EXPECT_FALSE(JsonPath::parse("a."));
  EXPECT_TRUE(JsonPath::parse("a[][]"));
}

TEST(JsonPath, MatchesConcreteLocations) {
  auto p = JsonPath::parse("params.items[].id");
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->matches_location("params.items[12].id"));
  EXPECT_FALSE(p->matches_location("params.items.id"));
  EXPECT_FALSE(p->matches_location("params.items[0].idx"));
  EXPECT_TRUE(JsonPath::parse("result.*.x")->matches_location("result.any.x"));
}

// Found by the json_path fuzz target: a member name with '.' (or empty) made a location that
// read back as other steps, so `*` did not match it and the place was compared exactly.
TEST(JsonPath, LocationsBracketNamesAPathCannotSpell) {
  auto any = JsonPath::parse("result.*.updatedAt");
  ASSERT_TRUE(any);
  boost::json::value doc = boost::json::parse(R"({"result":{"a.txt":{"updatedAt":1},"":{"updatedAt":2},"b":{"updatedAt":3}}})");
  std::vector<std::string> locations;
  any->for_each_match(static_cast<const boost::json::value&>(doc),
                      [&](const boost::json::value&, const std::string& location) { locations.push_back(location); });
  EXPECT_EQ(locations, (std::vector<std::string>{R"(result["a.txt"].updatedAt)", R"(result[""].updatedAt)",
                                                 "result.b.updatedAt"}));
  for (const std::string& location : locations) EXPECT_TRUE(any->matches_location(location)) << location;
  EXPECT_EQ(append_member("", "x[0]"), R"(["x[0]"])");
  EXPECT_EQ(append_member("a", "q\"*"), R"(a["q\"*"])");
  EXPECT_TRUE(JsonPath::parse("*")->matches_location(R"(["q\"*"])"));
  EXPECT_FALSE(JsonPath::parse("a.*")->matches_location("a.b.c"));
  EXPECT_FALSE(JsonPath::parse("*")->matches_location(R"(["unterminated)"));
}

TEST(Registry, StartsWithTheCorpusPathsAndExtendsFromFile) {
  Registry registry = Registry::builtin();
  EXPECT_EQ(registry.paths().size(), 5u);
  EXPECT_TRUE(registry.contains("result.session.sessionId"));
  EXPECT_FALSE(registry.contains("params.sessionId"));
  test::TempDir tmp;
  test::write_text(tmp / "r.json", R"(["params.sessionId","params.items[].id"])");
  ASSERT_TRUE(registry.extend_from_file(tmp / "r.json"));
  EXPECT_TRUE(registry.contains("params.items[].id"));
  test::write_text(tmp / "bad.json", R"(["params..x"])");
  auto bad = registry.extend_from_file(tmp / "bad.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().file, (tmp / "bad.json").string());
}

}  // namespace
}  // namespace msptk
