#include "msptk/transcript/json_parse.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace msptk;
namespace json = boost::json;

std::string nested(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(JsonParse, AcceptsStrictJsonLikeBoost) {
  auto v = parse_json(R"( {"a":[1,-2,18446744073709551615,0.5,"x",true,null],"b":{}} )");
  ASSERT_TRUE(v) << v.error().describe();
  EXPECT_EQ(serialize_json(*v), R"({"a":[1,-2,18446744073709551615,0.5,"x",true,null],"b":{}})");
  EXPECT_TRUE((*v).at("a").at(0).is_int64());
  EXPECT_TRUE((*v).at("a").at(2).is_uint64());
  EXPECT_TRUE((*v).at("a").at(3).is_double());
}

// parse_json_top gives the verdict parse_json gives on every text (the same error, the same
// offset) and builds the top level only: containers inside it are empty ones of their type.
TEST(JsonParse, TopOnlyGivesTheSameVerdictAndKeepsTheTopLevel) {
  auto top = parse_json_top(R"({"jsonrpc":"2.0","method":"m","params":{"a":[1,{"b":2}],"c":"x"},"list":[[1],{}],"n":1e400,"s":"q\"x"})",
                            json::storage_ptr());
  ASSERT_TRUE(top) << top.error().describe();
  EXPECT_EQ(serialize_json(*top), R"({"jsonrpc":"2.0","method":"m","params":{},"list":[],"n":1e400,"s":"q\"x"})");
  auto array = parse_json_top(R"([1,[2,[3]],{"a":{"b":1}},"s"])", json::storage_ptr());
  ASSERT_TRUE(array);
  EXPECT_EQ(serialize_json(*array), R"([1,[],{},"s"])");
  auto scalar = parse_json_top("12345678901234567890123", json::storage_ptr());
  ASSERT_TRUE(scalar);
  EXPECT_EQ(serialize_json(*scalar), "12345678901234567890123");
  for (const std::string& text : std::vector<std::string>
       {std::string("{\"a\":{\"b\":1,\"b\":2}}"), std::string("{\"a\":[{\"x\":1,\"y\":{},\"x\":3}]}"),
        std::string("{\"a\":1,\"a\":1}"), std::string("{\"p\":{\"q\":1e999999999999}}"), std::string("{\"a\":[1,]}"),
        std::string("{\"a\":\"\xff\"}"), std::string("{} x"), nested(10001), "[" + nested(10000) + "]", nested(10000)}) {
    auto full = parse_json(text);
    auto only_top = parse_json_top(text, json::storage_ptr());
    ASSERT_EQ(bool(full), bool(only_top)) << text.substr(0, 60);
    if (!full) {
      EXPECT_EQ(full.error().kind, only_top.error().kind) << text.substr(0, 60);
      EXPECT_EQ(full.error().offset, only_top.error().offset) << text.substr(0, 60);
      EXPECT_EQ(full.error().message, only_top.error().message) << text.substr(0, 60);
    }
  }
}

TEST(JsonParse, RefusesWhatIsNotJson) {
  for (const char* bad : {"", "{", "[1,]", "{\"a\":1}x", "01", "NaN", "Infinity", "\"\xff\"", "{'a':1}", "/**/1"}) {
    auto v = parse_json(bad);
    ASSERT_FALSE(v) << bad;
    EXPECT_EQ(v.error().kind, JsonErrorKind::not_json) << bad;
    EXPECT_NE(v.error().describe().find("not JSON: "), std::string::npos) << bad;
    EXPECT_NE(v.error().about("raw").find("raw is not JSON: "), std::string::npos) << bad;
  }
}

TEST(JsonParse, NestsTenThousandLevelsAndNamesTheLimitBeyond) {
  auto deep = parse_json(nested(10000));
  ASSERT_TRUE(deep) << deep.error().describe();
  EXPECT_EQ(serialize_json(*deep), nested(10000));
  std::string objects;
  for (int i = 0; i < 10000; ++i) objects += "{\"a\":";
  objects += "1" + std::string(10000, '}');
  auto deep_objects = parse_json(objects);
  ASSERT_TRUE(deep_objects) << deep_objects.error().describe();

  auto too_deep = parse_json(nested(10001));
  ASSERT_FALSE(too_deep);
  EXPECT_EQ(too_deep.error().kind, JsonErrorKind::too_deep);
  EXPECT_EQ(too_deep.error().message, "nested deeper than 10000 levels");
  EXPECT_EQ(too_deep.error().about("raw"), "raw is nested deeper than 10000 levels");

  auto limited = parse_json(nested(41), ParseLimits{40});
  ASSERT_FALSE(limited);
  EXPECT_EQ(limited.error().message, "nested deeper than 40 levels");
  EXPECT_TRUE(parse_json(nested(40), ParseLimits{40}));
}

TEST(JsonParse, DuplicateMembersAreErrorsNamingTheMember) {
  auto v = parse_json(R"({"dir":"client","raw":"a","raw":"b"})");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().kind, JsonErrorKind::duplicate_member);
  EXPECT_EQ(v.error().member, "raw");
  EXPECT_EQ(v.error().message, "duplicate member \"raw\"");
  EXPECT_EQ(v.error().about("the line"), "the line has a duplicate member \"raw\"");

  auto inner = parse_json(R"({"a":{"id":1,"x":{"id":2},"id":3}})");
  ASSERT_FALSE(inner);
  EXPECT_EQ(inner.error().member, "id");

  // The same name in different objects, or escaped differently but equal, or many members.
  EXPECT_TRUE(parse_json(R"({"id":1,"x":{"id":2},"y":[{"id":3},{"id":4}]})"));
  auto escaped = parse_json(R"({"id":1,"\u0069d":2})");
  ASSERT_FALSE(escaped);
  EXPECT_EQ(escaped.error().member, "id");
  std::string many = "{";
  for (int i = 0; i < 100; ++i) many += "\"m" + std::to_string(i) + "\":0,";
  EXPECT_TRUE(parse_json(many + "\"last\":1}"));
  auto late = parse_json(many + "\"m57\":1}");
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().member, "m57");
}

TEST(JsonParse, NumbersADoubleCannotHoldAreExactNumbers) {
  for (const char* text : {"1e400", "-1e400", "1e-400", "123456789012345678901234567890",
                           "0.12345678901234567890123", "9007199254740993.0", "-18446744073709551617"}) {
    auto v = parse_json(text);
    ASSERT_TRUE(v) << text;
    EXPECT_TRUE(is_exact_number(*v)) << text;
    EXPECT_TRUE(is_json_number(*v)) << text;
    EXPECT_FALSE(is_json_string(*v)) << text;
    EXPECT_EQ(number_text(*v), text);
    EXPECT_EQ(serialize_json(*v), text);
  }
  for (const char* text : {"0.1", "1.5", "1e300", "1.0", "-0.0", "2.5e-7", "1e22", "100000000000000000000"}) {
    auto v = parse_json(text);
    ASSERT_TRUE(v) << text;
    EXPECT_TRUE(v->is_double()) << text;
  }
  EXPECT_TRUE(parse_json("9223372036854775807")->is_int64());
  EXPECT_TRUE(parse_json("18446744073709551615")->is_uint64());
  // A string from input never looks like an exact number (it is valid UTF-8, 0xFF never is).
  EXPECT_FALSE(is_exact_number(*parse_json(R"("\u00ff1")")));
}

TEST(JsonParse, NumbersCompareByExactValue) {
  auto eq = [](const char* a, const char* b) { return numbers_equal(*parse_json(a), *parse_json(b)); };
  EXPECT_FALSE(eq("1e400", "1e401"));
  EXPECT_TRUE(eq("1e400", "10e399"));
  EXPECT_TRUE(eq("1e400", "1.000e400"));
  EXPECT_FALSE(eq("123456789012345678901234567890", "123456789012345678901234567891"));
  EXPECT_TRUE(eq("123456789012345678901234567890", "1234567890123456789012345678.9e2"));
  EXPECT_TRUE(eq("1.0", "1"));
  EXPECT_TRUE(eq("1e0", "1"));
  EXPECT_TRUE(eq("3", "3.0"));
  EXPECT_TRUE(eq("12345678901234567890.0", "12345678901234567890"));
  EXPECT_FALSE(eq("9007199254740993.0", "9007199254740992"));
  EXPECT_FALSE(eq("9007199254740993", "9007199254740992.0"));
  EXPECT_FALSE(eq("-1", "18446744073709551615"));
  EXPECT_FALSE(eq("0.1", "0.10000000000000000001"));
  EXPECT_TRUE(eq("0", "-0.0"));
  EXPECT_FALSE(numbers_equal(*parse_json("1"), *parse_json("\"1\"")));
}

TEST(JsonParse, CanonicalNumberTextIsOneTextPerValue) {
  auto canon = [](const char* t) { return canonical_number_text(*parse_json(t)); };
  EXPECT_EQ(canon("1.0"), "1");
  EXPECT_EQ(canon("1e0"), "1");
  EXPECT_EQ(canon("1e400"), "1e400");
  EXPECT_EQ(canon("10.0e399"), "1e400");
  EXPECT_EQ(canon("-1.50e-400"), "-1.5e-400");
  EXPECT_EQ(canon("123456789012345678901234567890.000"), "123456789012345678901234567890");
  EXPECT_EQ(canon("0.12345678901234567890123"), "0.12345678901234567890123");
  EXPECT_EQ(canon("0.5"), "0.5");
  EXPECT_EQ(canon("12345678901234567890.0"), "12345678901234567890");
  // Every canonical text is itself a JSON number of the same value.
  for (const char* t : {"1e400", "-1.5e-400", "0.000001234567890123456789012", "1e300", "0.1"}) {
    const std::string c = canon(t);
    auto back = parse_json(c);
    ASSERT_TRUE(back) << c;
    EXPECT_TRUE(numbers_equal(*back, *parse_json(t))) << t << " vs " << c;
  }
}

TEST(JsonParse, SerializeWritesStrictJsonWithEscapes) {
  json::value v = json::object{{"s", "a\"b\\c\n\x01\x7f\xc3\xa9"}, {"d", 0.1}, {"inf", 1e308 * 10}};
  v.as_object()["x"] = make_exact_number("1e400");
  const std::string text = serialize_json(v);
  EXPECT_EQ(text, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\x7f\xc3\xa9\",\"d\":0.1,\"inf\":null,\"x\":1e400}");
  EXPECT_TRUE(parse_json(text));
}

// A monotonic_resource's release() keeps the size its next block would have had, which doubles
// with each block: an arena released after every frame larger than its block then asked for
// 2^k times the block at the k-th such frame, and after a few dozen (diff of two 96 MB sessions)
// the allocation failed and every later large frame parsed as invalid JSON. Released, the arena
// starts over from its block.
TEST(JsonArena, ReleaseStartsOverFromTheBlock) {
  JsonArena arena(1024);
  const std::string doc = "[\"" + std::string(8000, 'x') + "\",\"" + std::string(8000, 'y') + "\"]";
  for (int round = 0; round < 80; ++round) {  // 2^80 KiB: no allocator gives that
    ArenaScope scope(arena);
    auto parsed = parse_json(doc, scope.storage());
    ASSERT_TRUE(parsed) << "round " << round;
    ASSERT_EQ(parsed->as_array().size(), 2u);
  }
}

// The arena keeps the large blocks a DOM took beyond its block and hands them out again: a
// session of multi-MiB frames faults their memory once. Blocks over 8 MiB, and what would keep
// more than 16 MiB in all, go back.
TEST(JsonArena, KeepsLargeBlocksForTheNextFrameWithinItsBounds) {
  JsonArena::BlockCache cache;
  boost::json::memory_resource& r = cache;
  void* a = r.allocate(3 << 20, 16);
  r.deallocate(a, 3 << 20, 16);
  EXPECT_EQ(cache.kept_bytes(), std::size_t{3} << 20);
  void* b = r.allocate(2 << 20, 16);  // a smaller request takes the kept block
  EXPECT_EQ(b, a);
  EXPECT_EQ(cache.kept_bytes(), 0u);
  r.deallocate(b, 2 << 20, 16);
  void* huge = r.allocate(12 << 20, 16);  // over 8 MiB: never kept
  r.deallocate(huge, 12 << 20, 16);
  EXPECT_EQ(cache.kept_bytes(), std::size_t{3} << 20);
  std::vector<void*> many;
  for (int i = 0; i < 8; ++i) many.push_back(r.allocate(4 << 20, 16));
  for (void* p : many) r.deallocate(p, 4 << 20, 16);
  EXPECT_LE(cache.kept_bytes(), std::size_t{16} << 20);
  void* small = r.allocate(1000, 8);  // small blocks are not the cache's
  r.deallocate(small, 1000, 8);
  EXPECT_LE(cache.kept_bytes(), std::size_t{16} << 20);
  // Through an arena: a large DOM parsed again and again, same result.
  JsonArena arena(1024);
  const std::string doc = "[\"" + std::string(1 << 20, 'x') + "\"]";
  for (int round = 0; round < 20; ++round) {
    ArenaScope scope(arena);
    auto parsed = parse_json(doc, scope.storage());
    ASSERT_TRUE(parsed) << "round " << round;
    ASSERT_EQ(parsed->as_array()[0].as_string().size(), std::size_t{1} << 20);
  }
}

}  // namespace
