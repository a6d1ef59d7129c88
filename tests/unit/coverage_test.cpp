// The coverage map: rows per table of a bundle, responses paired with their requests, enum
// values found through the schema, what the bundle lacks, and the three renderers.
#include "msptk/coverage/coverage.hpp"
#include "msptk/coverage/render.hpp"
#include "test_support.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <set>
#include <sstream>

namespace msptk::coverage {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using test::TempDir;

schema::Bundle tiny_bundle() {
  return schema::Bundle::from_json(json::parse(R"({
    "$defs": {
      "Kind": {"enum": ["a", "b", "c"], "type": "string", "x-msp-openness": "open"},
      "ItemKind": {"enum": ["userMessage", "toolCall"], "type": "string", "x-msp-openness": "open"},
      "Item": {"properties": {"kind": {"$ref": "#/$defs/ItemKind"}}, "type": "object"},
      "DoParams": {"properties": {"kind": {"anyOf": [{"$ref": "#/$defs/Kind"}, {"type": "null"}]},
                                  "item": {"$ref": "#/$defs/Item"}}, "type": "object"},
      "InitResult": {"properties": {"grantedCapabilities": {"items": {"type": "string"}, "type": "array"}}, "type": "object"}
    },
    "methods": {"initialize": {"result": {"$ref": "#/$defs/InitResult"}}, "do": {"params": {"$ref": "#/$defs/DoParams"}},
                "never": {}},
    "requests": {"ask": {}},
    "notifications": {"initialized": {}, "done": {"params": {"$ref": "#/$defs/DoParams"}}},
    "errors": [{"code": -32030, "kind": "commandRejected"}, {"code": -32600, "kind": "invalidRequest"}],
    "capabilities": {"grantable": ["userShell", "feedback"]}
  })"), "tiny.json").value();
}

std::string line(const char* dir, const std::string& raw) {
  return json::serialize(json::object{{"dir", dir}, {"raw", raw}}) + "\n";
}

fs::path scenario(const fs::path& corpus, const std::string& name, const std::string& transcript) {
  fs::create_directories(corpus / name);
  test::write_text(corpus / name / "transcript.ndjson", transcript);
  test::write_text(corpus / name / "manifest.json", "{\"scenario\": " + json::serialize(json::value(name)) + "}\n");
  return corpus / name;
}

const std::string kHandshake =
    line("client", R"({"jsonrpc":"2.0","id":1,"method":"initialize"})") +
    line("server", R"({"jsonrpc":"2.0","id":1,"result":{"grantedCapabilities":["userShell","rawLog"]}})") +
    line("client", R"({"jsonrpc":"2.0","method":"initialized"})");

CoverageMap sample(TempDir& dir) {
  scenario(dir.path(), "one",
           kHandshake + line("client", R"({"jsonrpc":"2.0","id":2,"method":"do","params":{"kind":"a","item":{"kind":"toolCall"}}})") +
               line("server", R"({"jsonrpc":"2.0","id":2,"result":{}})") +
               line("client", R"({"jsonrpc":"2.0","id":3,"method":"do","params":{"kind":null}})") +
               line("server", R"({"jsonrpc":"2.0","id":3,"error":{"code":-32030,"message":"no","data":{"kind":"commandRejected"}}})"));
  scenario(dir.path(), "two",
           kHandshake + line("server", R"({"jsonrpc":"2.0","method":"done","params":{"kind":"zz"}})") +
               line("server", R"({"jsonrpc":"2.0","method":"later"})") +
               line("client", R"({"jsonrpc":"2.0","id":4,"method":"do"})") +
               line("server", R"({"jsonrpc":"2.0","id":4,"error":{"code":-32099,"message":"?"}})"));
  return compute_coverage({dir.path()}, tiny_bundle());
}

const Row& row(const CoverageMap& map, std::string_view table, std::string_view name) {
  const Table* t = map.table(table);
  EXPECT_NE(t, nullptr) << table;
  for (const Row& r : t->rows)
    if (r.name == name) return r;
  ADD_FAILURE() << table << " has no row " << name;
  static const Row none;
  return none;
}

TEST(Coverage, CountsScenariosFramesAndResponsesPerMethod) {
  TempDir dir;
  const CoverageMap map = sample(dir);
  EXPECT_TRUE(map.problems.empty());
  ASSERT_EQ(map.scenarios.size(), 2u);
  const Row& doit = row(map, "methods", "do");
  EXPECT_EQ(doit.frames, 3u);
  EXPECT_EQ(doit.scenarios, (std::set<std::string>{"one", "two"}));
  EXPECT_EQ(doit.successes, 1u);
  EXPECT_EQ(doit.errors, 2u);
  EXPECT_EQ(doit.error_codes.at("-32030 commandRejected"), 1u);
  EXPECT_EQ(doit.error_codes.at("-32099"), 1u);
  EXPECT_FALSE(row(map, "methods", "never").covered());
  EXPECT_FALSE(row(map, "requests", "ask").covered());
  EXPECT_EQ(row(map, "notifications", "initialized").frames, 2u);
  EXPECT_EQ(row(map, "errors", "-32030 commandRejected").values.at("commandRejected"), 1u);
  EXPECT_FALSE(row(map, "errors", "-32600 invalidRequest").covered());
  EXPECT_EQ(row(map, "capabilities", "userShell").scenarios.size(), 2u);
  EXPECT_FALSE(row(map, "capabilities", "feedback").covered());
}

TEST(Coverage, EnumValuesAreFoundThroughTheSchema) {
  TempDir dir;
  const CoverageMap map = sample(dir);
  const Row& kind = row(map, "enums", "Kind");
  EXPECT_EQ(kind.values.at("a"), 1u);  // through anyOf [Kind, null]
  EXPECT_EQ(kind.values.at("b"), 0u);
  EXPECT_EQ(kind.detail, "open");
  EXPECT_EQ(row(map, "enums", "ItemKind").values.at("toolCall"), 1u);
  EXPECT_TRUE(row(map, "itemKinds", "toolCall").covered());
  EXPECT_FALSE(row(map, "itemKinds", "userMessage").covered());
}

TEST(Coverage, ListsWhatTheBundleDoesNotHave) {
  TempDir dir;
  const CoverageMap map = sample(dir);
  std::vector<std::string> unknown;
  for (const Unknown& u : map.unknown) unknown.push_back(u.what + " " + u.name + " x" + std::to_string(u.frames));
  EXPECT_EQ(unknown, (std::vector<std::string>{"capability rawLog x2", "enum value Kind: zz x1", "notification later x1",
                                               "error code -32099 x1"}));
  EXPECT_EQ(map.summary(),
            "methods 2/3, requests 0/1, notifications 2/2, errors 1/2, capabilities 1/2, enums 2/2, itemKinds 1/2, "
            "enum values 2/5, 4 not in the bundle");
}

TEST(Coverage, TextSortsLeastCoveredFirst) {
  TempDir dir;
  std::ostringstream out;
  render_text(sample(dir), out);
  const std::string text = out.str();
  EXPECT_LT(text.find("  never "), text.find("  do "));
  EXPECT_NE(text.find("Methods (client requests): 2/3 covered"), std::string::npos);
  EXPECT_NE(text.find("1 ok, 2 error; -32030 commandRejected ×1; -32099 ×1"), std::string::npos) << text;
  EXPECT_NE(text.find("Not in the bundle: 4"), std::string::npos);
}

TEST(Coverage, JsonCarriesEveryTable) {
  TempDir dir;
  std::ostringstream out;
  render_json(sample(dir), out);
  const json::value doc = json::parse(out.str());
  EXPECT_EQ(doc.at("kind"), "msptkCoverage");
  EXPECT_EQ(doc.at("tables").as_array().size(), 7u);
  EXPECT_EQ(doc.at("tables").at(0).at("id"), "methods");
  EXPECT_EQ(doc.at("tables").at(0).at("covered"), 2);
  EXPECT_EQ(doc.at("notInBundle").as_array().size(), 4u);
}

TEST(Coverage, HtmlIsSelfContainedAndEscapes) {
  TempDir dir;
  scenario(dir.path(), "x<y", kHandshake + line("client", R"({"jsonrpc":"2.0","method":"<script>"})"));
  std::ostringstream out;
  render_html(compute_coverage({dir.path()}, tiny_bundle()), out);
  const std::string html = out.str();
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"#scenario-x_3cy\">x&lt;y</a>"), std::string::npos);
  EXPECT_NE(html.find("<tr id=\"scenario-x_3cy\">"), std::string::npos);
}

// Every `id="…"` of a page, in order.
std::vector<std::string> ids_of(const std::string& html) {
  std::vector<std::string> ids;
  for (std::size_t at = html.find(" id=\""); at != std::string::npos; at = html.find(" id=\"", at + 1)) {
    const std::size_t start = at + 5;
    ids.push_back(html.substr(start, html.find('"', start) - start));
  }
  return ids;
}

TEST(Coverage, HtmlAnchorsAreUniqueForAnyScenarioNames) {
  TempDir dir;
  // Names that a lossy spelling (every byte but letters, digits, '-' and '_' as '_') merged.
  const std::vector<std::string> names = {"a.b", "a_b", "a b", "a__b", "a_2eb", "a-b", "a\xc3\xa9" "b", "a\xc3\xa8" "b",
                                          "summary", "scenarios"};
  for (const std::string& name : names)
    scenario(dir.path(), name, kHandshake + line("client", R"({"jsonrpc":"2.0","method":"do","params":{}})"));
  std::ostringstream out;
  render_html(compute_coverage({dir.path()}, tiny_bundle()), out);
  const std::string html = out.str();
  const std::vector<std::string> ids = ids_of(html);
  const std::set<std::string> unique(ids.begin(), ids.end());
  EXPECT_EQ(unique.size(), ids.size()) << html;
  std::size_t scenario_rows = 0;
  for (const std::string& id : ids) scenario_rows += id.starts_with("scenario-");
  EXPECT_EQ(scenario_rows, names.size());
  // Every link names an id of the page.
  for (std::size_t at = html.find("href=\"#"); at != std::string::npos; at = html.find("href=\"#", at + 1)) {
    const std::size_t start = at + 7;
    EXPECT_TRUE(unique.contains(html.substr(start, html.find('"', start) - start))) << html.substr(at, 60);
  }
}

TEST(Coverage, TextEscapesControlBytesInNames) {
  TempDir dir;
  scenario(dir.path(), "line\nbreak\x1b[31m", kHandshake + line("client", R"({"jsonrpc":"2.0","method":"new\nline\u001b[2J"})"));
  std::ostringstream out;
  render_text(compute_coverage({dir.path()}, tiny_bundle()), out);
  const std::string text = out.str();
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_NE(text.find("new\\nline\\x1b[2J"), std::string::npos) << text;
  EXPECT_NE(text.find("line\\nbreak\\x1b[31m"), std::string::npos) << text;
  for (std::size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    EXPECT_EQ(text.find("break", start) < end, text.find("line\\nbreak", start) < end) << text.substr(start, end - start);
}

TEST(Coverage, ABundleWithADanglingReferenceIsRefusedNamingItsPointer) {
  auto bundle = schema::Bundle::from_json(json::parse(R"({
    "$defs": {"P": {"properties": {"k": {"$ref": "#/$defs/Missing"}}, "type": "object"}},
    "methods": {"do": {"params": {"$ref": "#/$defs/P"}}}, "notifications": {}})"), "dangling.json");
  ASSERT_FALSE(bundle);
  EXPECT_EQ(bundle.error().rule, "schema.bundle");
  EXPECT_EQ(exit_code(bundle.error().kind), 3);
  EXPECT_NE(bundle.error().message.find("#/$defs/P/properties/k/$ref"), std::string::npos) << bundle.error().message;
  EXPECT_NE(bundle.error().message.find("#/$defs/Missing"), std::string::npos) << bundle.error().message;
  // A reference beside other assertions (rewritten into allOf) and one in a method table.
  for (const char* doc : {R"({"methods": {"do": {"params": {"$ref": "#/$defs/Nope", "type": "object"}}}, "notifications": {}})",
                          R"({"methods": {}, "notifications": {"n": {"params": {"items": [{"$ref": "#/$defs/A~1B"}]}}}, "$defs": {"A": {}}})",
                          R"({"methods": {"do": {"result": {"$ref": "other.json#/x"}}}, "notifications": {}})"}) {
    auto refused = schema::Bundle::from_json(json::parse(doc), "b.json");
    ASSERT_FALSE(refused) << doc;
    EXPECT_NE(refused.error().message.find("/$ref"), std::string::npos) << refused.error().message;
  }
  EXPECT_TRUE(schema::Bundle::from_json(json::parse(R"({"methods": {"do": {"params": {"$ref": "#/$defs/A~1B"}}},
    "notifications": {}, "$defs": {"A/B": {}}})"), "ok.json"));
}

TEST(Coverage, UnreadablePathIsAProblem) {
  const CoverageMap map = compute_coverage({"/nonexistent/corpus"}, tiny_bundle());
  EXPECT_EQ(map.problems.size(), 1u);
}

}  // namespace
}  // namespace msptk::coverage
