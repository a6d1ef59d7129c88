// The schema module: every JSON Schema construct the MSP bundles use, checked through the
// Bundle (valijson after the 2020-12 → draft-7 rewrite), and the bundle tables.
#include "msptk/schema/bundle.hpp"
#include "msptk/transcript/json_parse.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <filesystem>

namespace msptk::schema {
namespace {

namespace json = boost::json;

// A bundle whose method "m" has `params` = `schema` and whose $defs are `defs`.
Bundle bundle_with(const std::string& schema, const std::string& defs = "{}") {
  json::value doc = json::parse(R"({"$schema":"https://json-schema.org/draft/2020-12/schema","methods":{"m":{"params":)" +
                                schema + R"(}},"notifications":{},"$defs":)" + defs + "}");
  return Bundle::from_json(std::move(doc), "test.json").value();
}

std::vector<Violation> check(const Bundle& b, const std::string& instance) {
  return b.validate(*b.schema_pointer(Table::methods, "m", "params"), json::parse(instance), "params");
}

std::string one(const Bundle& b, const std::string& instance) {
  auto v = check(b, instance);
  if (v.size() != 1) {
    std::string all;
    for (auto& x : v) all += x.render() + "\n";
    return "expected one violation, got " + std::to_string(v.size()) + ":\n" + all;
  }
  return v[0].render();
}

const std::string kSession = R"({"Session":{"type":"object","properties":{"sessionId":{"type":"string"},
  "forkedFrom":{"anyOf":[{"$ref":"#/$defs/Fork"},{"type":"null"}]}},"required":["sessionId"]},
  "Fork":{"type":"object","properties":{"parent":{"type":"string"}},"required":["parent"]},
  "Mode":{"enum":["auto","ask"],"type":"string","x-msp-openness":"open"},
  "Shape":{"enum":["round","square"],"type":"string","x-msp-openness":"closed"},
  "Plain":{"enum":["a","b"],"type":"string"}})";

TEST(Schema, RefIntoDefsAndTypeIsExpectedVersusGot) {
  Bundle b = bundle_with(R"({"type":"object","properties":{"session":{"$ref":"#/$defs/Session"}}})", kSession);
  EXPECT_TRUE(check(b, R"({"session":{"sessionId":"s1"}})").empty());
  EXPECT_EQ(one(b, R"({"session":{"sessionId":7}})"),
            "params.session.sessionId: expected string, got integer (schema #/$defs/Session/properties/sessionId)");
}

TEST(Schema, RequiredNamesTheMissingMember) {
  Bundle b = bundle_with(R"({"type":"object","required":["decidedAt"]})");
  EXPECT_EQ(one(b, "{}"), "params: missing required member \"decidedAt\" (schema #/methods/m/params)");
}

TEST(Schema, EnumNamesTheDefinitionAndItsOpenness) {
  Bundle b = bundle_with(R"({"type":"object","properties":{"mode":{"$ref":"#/$defs/Mode"},"shape":{"$ref":"#/$defs/Shape"},
                            "plain":{"$ref":"#/$defs/Plain"}}})", kSession);
  auto open = check(b, R"({"mode":"yolo"})");
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].constraint, Constraint::enum_value);
  EXPECT_EQ(open[0].enum_name, "Mode");
  EXPECT_TRUE(open[0].open_enum);
  EXPECT_TRUE(open[0].string_value);
  EXPECT_EQ(open[0].render(), "params.mode: \"yolo\" is not a value of the open enum Mode (one of \"auto\", \"ask\") (schema #/$defs/Mode)");
  auto closed = check(b, R"({"shape":"hex"})");
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_FALSE(closed[0].open_enum);
  EXPECT_EQ(closed[0].enum_name, "Shape");
  auto unmarked = check(b, R"({"plain":"c"})");
  ASSERT_EQ(unmarked.size(), 1u);
  EXPECT_FALSE(unmarked[0].open_enum);
  // A non-string value at an open enum: a type error, never a tolerated value.
  auto number = check(b, R"({"mode":3})");
  ASSERT_EQ(number.size(), 1u);
  EXPECT_EQ(number[0].constraint, Constraint::type);
}

TEST(Schema, AnyOfNarrowsToTheAlternativeTheTypeSelects) {
  Bundle b = bundle_with(R"({"$ref":"#/$defs/Session"})", kSession);
  EXPECT_TRUE(check(b, R"({"sessionId":"s","forkedFrom":null})").empty());
  EXPECT_TRUE(check(b, R"({"sessionId":"s","forkedFrom":{"parent":"p"}})").empty());
  EXPECT_EQ(one(b, R"({"sessionId":"s","forkedFrom":{}})"),
            "params.forkedFrom: missing required member \"parent\" (schema #/$defs/Fork)");
  EXPECT_EQ(one(b, R"({"sessionId":"s","forkedFrom":"p"})"),
            "params.forkedFrom: expected Fork or null, got string \"p\" (schema #/$defs/Session/properties/forkedFrom)");
}

TEST(Schema, NullableOpenEnumStillReportsTheEnum) {
  Bundle b = bundle_with(R"({"type":"object","properties":{"mode":{"anyOf":[{"$ref":"#/$defs/Mode"},{"type":"null"}]}}})", kSession);
  auto v = check(b, R"({"mode":"new"})");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].constraint, Constraint::enum_value);
  EXPECT_TRUE(v[0].open_enum);
}

TEST(Schema, ConstAndOneOfDiscriminator) {
  Bundle b = bundle_with(R"({"oneOf":[
      {"type":"object","properties":{"transport":{"const":"stdio","type":"string"},"command":{"type":"string"}},"required":["command","transport"]},
      {"type":"object","properties":{"transport":{"const":"http","type":"string"},"url":{"type":"string"}},"required":["url","transport"]}]})");
  EXPECT_TRUE(check(b, R"({"transport":"stdio","command":"x"})").empty());
  EXPECT_EQ(one(b, R"({"transport":"http"})"), "params: missing required member \"url\" (schema #/methods/m/params/oneOf/1)");
  EXPECT_EQ(one(b, R"({"transport":"ftp","url":"u"})"),
            "params.transport: expected \"stdio\" or \"http\", got \"ftp\" (the member that selects an alternative of "
            "oneOf) (schema #/methods/m/params)");
  Bundle c = bundle_with(R"({"properties":{"t":{"const":"stdio"}}})");
  EXPECT_EQ(one(c, R"({"t":"tcp"})"), "params.t: expected \"stdio\", got \"tcp\" (schema #/methods/m/params/properties/t)");
}

TEST(Schema, OneOfMatchingTwoAlternativesFails) {
  Bundle b = bundle_with(R"({"oneOf":[{"type":"string"},{"type":"string","minLength":1}]})");
  EXPECT_EQ(check(b, R"("")").size(), 0u);
  auto v = check(b, R"("x")");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].constraint, Constraint::one_of);
  EXPECT_NE(v[0].message.find("matches 2 of the alternatives of oneOf"), std::string::npos) << v[0].message;
}

TEST(Schema, NotRejectsWhatItMatches) {
  Bundle b = bundle_with(R"({"properties":{"family":{"not":{"enum":["cron","codeMode"]},"type":"string"}}})");
  EXPECT_TRUE(check(b, R"({"family":"mail"})").empty());
  auto v = check(b, R"({"family":"cron"})");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].constraint, Constraint::not_);
  EXPECT_EQ(v[0].path, "params.family");
}

TEST(Schema, PatternIsAnchoredAsWritten) {
  Bundle b = bundle_with(R"({"properties":{"name":{"pattern":"^[a-z0-9_]+$","type":"string"}}})");
  EXPECT_TRUE(check(b, R"({"name":"conformance_2"})").empty());
  EXPECT_EQ(one(b, R"({"name":"Bad Name"})"),
            "params.name: expected a string matching \"^[a-z0-9_]+$\", got \"Bad Name\" (schema #/methods/m/params/properties/name)");
}

TEST(Schema, AdditionalPropertiesAsMapAndAsFalse) {
  Bundle b = bundle_with(R"({"properties":{"env":{"additionalProperties":{"type":"string"},"type":"object"}}})");
  EXPECT_TRUE(check(b, R"({"env":{"A":"1"}})").empty());
  EXPECT_EQ(one(b, R"({"env":{"A":"1","B":2}})"),
            "params.env.B: expected string, got integer (schema #/methods/m/params/properties/env/additionalProperties)");
  Bundle closed = bundle_with(R"({"properties":{"a":{}},"additionalProperties":false})");
  auto v = check(closed, R"({"a":1,"zz":2})");
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v.back().constraint, Constraint::additional_member);
}

TEST(Schema, DependentRequiredIsTranslatedToDependencies) {
  Bundle b = bundle_with(R"({"type":"object","dependentRequired":{"height":["width"],"width":["height"]}})");
  EXPECT_TRUE(check(b, R"({})").empty());
  EXPECT_TRUE(check(b, R"({"height":1,"width":2})").empty());
  EXPECT_EQ(one(b, R"({"height":1})"),
            "params: member \"height\" requires member \"width\" (dependentRequired) (schema #/methods/m/params)");
}

TEST(Schema, RefSiblingsAreAppliedAsIn2020) {
  Bundle b = bundle_with(R"({"properties":{"id":{"$ref":"#/$defs/Id","maxLength":3}}})", R"({"Id":{"type":"string"}})");
  EXPECT_TRUE(check(b, R"({"id":"abc"})").empty());
  EXPECT_EQ(check(b, R"({"id":"abcd"})").size(), 1u);  // draft 7 alone would ignore maxLength
  EXPECT_EQ(check(b, R"({"id":5})").size(), 1u);
}

TEST(Schema, PrefixItemsBecomeDraft7Items) {
  Bundle b = bundle_with(R"({"prefixItems":[{"type":"string"}],"items":{"type":"integer"}})");
  EXPECT_TRUE(check(b, R"(["a",1,2])").empty());
  EXPECT_EQ(one(b, R"(["a","b"])"), "params[1]: expected integer, got string (schema #/methods/m/params/additionalItems)");
}

TEST(Schema, ItemsAndBounds) {
  Bundle b = bundle_with(R"({"properties":{"limit":{"type":"integer","minimum":1,"maximum":1000},
                            "tags":{"type":"array","items":{"type":"string"}}}})");
  EXPECT_EQ(one(b, R"({"limit":0})"), "params.limit: expected at least 1, got 0 (schema #/methods/m/params/properties/limit)");
  EXPECT_EQ(one(b, R"({"limit":1001})"), "params.limit: expected at most 1000, got 1001 (schema #/methods/m/params/properties/limit)");
  EXPECT_EQ(one(b, R"({"tags":["a",2]})"), "params.tags[1]: expected string, got integer (schema #/methods/m/params/properties/tags/items)");
}

TEST(Schema, NumbersAreTypedAs2020Does) {
  Bundle b = bundle_with(R"({"properties":{"n":{"type":"integer","maximum":9007199254740991},"x":{"type":"number"}}})");
  EXPECT_TRUE(check(b, R"({"n":1.0})").empty());  // an integer in 2020-12 (valijson alone says number)
  EXPECT_EQ(one(b, R"({"n":1.5})"), "params.n: expected integer, got number (schema #/methods/m/params/properties/n)");
  // A uint64 is an integer, over the bound.
  EXPECT_EQ(one(b, R"({"n":18446744073709551615})"),
            "params.n: expected at most 9007199254740991, got 18446744073709551615 (schema #/methods/m/params/properties/n)");
  EXPECT_TRUE(check(b, R"({"x":18446744073709551615})").empty());
  // An exact number of the strict parser (kept as its text) is a number, not a string.
  json::value params = parse_json(R"({"x":123456789012345678901234567890})").value();
  ASSERT_TRUE(is_exact_number(params.at("x")));
  EXPECT_TRUE(b.validate(*b.schema_pointer(Table::methods, "m", "params"), params, "params").empty());
  json::value fraction = parse_json(R"({"n":0.1000000000000000000000001})").value();
  ASSERT_TRUE(is_exact_number(fraction.at("n")));
  auto v = b.validate(*b.schema_pointer(Table::methods, "m", "params"), fraction, "params");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].message, "expected integer, got number");
}

TEST(Schema, FormatDateTimeIsAsserted) {
  Bundle b = bundle_with(R"({"properties":{"at":{"type":"string","format":"date-time"}}})");
  EXPECT_TRUE(check(b, R"({"at":"2026-01-02T03:04:05Z"})").empty());
  auto v = check(b, R"({"at":"yesterday"})");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].constraint, Constraint::format);
}

TEST(Schema, UnsupportedKeywordIsRefusedWhenLoading) {
  json::value doc = json::parse(R"({"methods":{"m":{"params":{"unevaluatedProperties":false}}},"notifications":{}})");
  auto b = Bundle::from_json(std::move(doc), "b.json");
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().message.find("#/methods/m/params uses unevaluatedProperties"), std::string::npos) << b.error().message;
}

TEST(Schema, PropertyNamedLikeAKeywordIsNotAKeyword) {
  // SessionListTextFilter has members named anyOf and allOf.
  Bundle b = bundle_with(R"({"type":"object","properties":{"anyOf":{"type":"array","items":{"type":"string"}}}})");
  EXPECT_TRUE(check(b, R"({"anyOf":["a"]})").empty());
  EXPECT_EQ(check(b, R"({"anyOf":[1]})").size(), 1u);
}

TEST(Schema, CyclicRefsDoNotHang) {
  json::value doc = json::parse(R"({"methods":{"m":{"params":{"$ref":"#/$defs/A"}}},"notifications":{},
                                     "$defs":{"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"}}})");
  auto b = Bundle::from_json(std::move(doc), "cycle.json");
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().message.find("$ref cycle"), std::string::npos) << b.error().message;
  Bundle tree = bundle_with(R"({"$ref":"#/$defs/Node"})",
                            R"({"Node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}})");
  EXPECT_TRUE(check(tree, R"({"children":[{"children":[]}]})").empty());
  EXPECT_EQ(one(tree, R"({"children":[{"children":[5]}]})"),
            "params.children[0].children[0]: expected object, got integer (schema #/$defs/Node)");
}

TEST(Schema, NotABundleIsAnError) {
  EXPECT_FALSE(Bundle::from_json(json::parse("[]"), "x.json"));
  EXPECT_FALSE(Bundle::from_json(json::parse(R"({"methods":{}})"), "x.json"));
  auto missing = Bundle::load("/nonexistent/msp.schema.json");
  ASSERT_FALSE(missing);
}

TEST(Schema, BundleWithoutRequestsTableLoads) {
  json::value doc = json::parse(R"({"methods":{"initialize":{}},"notifications":{"initialized":{}}})");
  Bundle b = Bundle::from_json(std::move(doc)).value();
  EXPECT_TRUE(b.knows(Table::methods, "initialize"));
  EXPECT_FALSE(b.knows(Table::requests, "approval/request"));
  EXPECT_TRUE(b.methods(Table::requests).empty());
}

const std::filesystem::path kCorpus = MSPTK_SHARED_CORPUS;

TEST(Schema, StableBundleCompilesEverySchemaOfEveryTable) {
  if (!std::filesystem::exists(kCorpus / "stable")) GTEST_SKIP() << "public corpus not found at " << kCorpus;
  for (const char* name : {"stable", "experimental", "release-baseline"}) {
    auto b = Bundle::load(kCorpus / name);
    ASSERT_TRUE(b) << b.error().render();
    ASSERT_TRUE(b->fingerprint());
    std::size_t schemas = 0;
    for (Table t : {Table::methods, Table::requests, Table::notifications}) {
      for (const std::string& m : b->methods(t)) {
        for (const char* part : {"params", "result"}) {
          auto pointer = b->schema_pointer(t, m, part);
          if (!pointer) continue;
          ++schemas;
          for (const Violation& v : b->validate(*pointer, json::parse("{}"), part))
            EXPECT_NE(v.constraint, Constraint::schema_unusable) << name << " " << v.render();
        }
      }
    }
    EXPECT_GT(schemas, 0u) << name;
  }
}

TEST(Schema, StableBundleTables) {
  if (!std::filesystem::exists(kCorpus / "stable")) GTEST_SKIP() << "public corpus not found at " << kCorpus;
  Bundle b = Bundle::load(kCorpus / "stable").value();
  EXPECT_EQ(b.methods(Table::methods).size(), 57u);
  EXPECT_EQ(b.methods(Table::notifications).size(), 35u);
  EXPECT_EQ(b.methods(Table::requests).size(), 2u);
  const ErrorEntry* invalid = b.error(-32600);
  ASSERT_NE(invalid, nullptr);
  EXPECT_EQ(invalid->kind, "invalidRequest");
  EXPECT_EQ(invalid->override_kinds, (std::vector<std::string>{"notInitialized", "alreadyInitialized"}));
  EXPECT_EQ(b.error(-1), nullptr);
  const EnumDef* kinds = b.find_enum("ErrorKind");
  ASSERT_NE(kinds, nullptr);
  EXPECT_EQ(kinds->openness, Openness::open);
  EXPECT_TRUE(b.has("#/$defs/ErrorObject"));
  // The dependentRequired of TurnInputPart is enforced.
  auto pointer = b.schema_pointer(Table::methods, "turn/start", "params");
  ASSERT_TRUE(pointer);
  EXPECT_EQ(b.grantable_capabilities().size(), 4u);
}

TEST(Schema, BundleSetFindsByFingerprintAndFallsBackToStable) {
  if (!std::filesystem::exists(kCorpus / "stable")) GTEST_SKIP() << "public corpus not found at " << kCorpus;
  BundleSet set = BundleSet::load(kCorpus).value();
  EXPECT_EQ(set.bundles().size(), 3u);
  EXPECT_EQ(*set.stable().fingerprint(), "sha256:7c94f153c41659cb3f1bd3c3e04438be254644cb2a97d65d48edc7449b74858a");
  const Bundle* baseline = set.find("sha256:28ef2488d457d2cd071a3d620ba3821711f0a5120b32dd7408fbf465c1500402");
  ASSERT_NE(baseline, nullptr);
  EXPECT_NE(baseline->file().find("release-baseline"), std::string::npos);
  EXPECT_EQ(set.find("sha256:0000"), nullptr);
  EXPECT_FALSE(BundleSet::load(kCorpus / "transcripts"));  // no stable/ in it
}

}  // namespace
}  // namespace msptk::schema
