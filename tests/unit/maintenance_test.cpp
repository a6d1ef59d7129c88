// The corpus maintenance module: the ledger read fail-closed, drift classification, staleness
// and repin over small corpora built in scratch folders (and the public corpus, read only).
#include "msptk/maintenance/drift.hpp"
#include "msptk/maintenance/ledger.hpp"
#include "msptk/maintenance/render.hpp"
#include "msptk/maintenance/repin.hpp"
#include "msptk/maintenance/staleness.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "test_support.hpp"

#include <boost/json.hpp>

#include <fmt/format.h>

#include <sstream>

namespace msptk::maintenance {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using test::TempDir;

const std::string kOld = "sha256:" + std::string(64, 'a');
const std::string kStable = "sha256:" + std::string(64, 'b');
const std::string kOther = "sha256:" + std::string(64, 'c');

std::string entry(std::string from, std::string to, std::string changes, std::string rationale = "remains valid",
                  std::string issue = "#208", std::string kind = "changelogAcknowledgment") {
  return fmt::format(R"({{"kind":"{}","fingerprintFrom":"{}","fingerprintTo":"{}","changes":{},"rationale":"{}","trackingIssue":"{}"}})",
                     kind, from, to, changes, rationale, issue);
}

Result<Ledger> ledger_of(const std::string& entries) {
  const std::string text = "{\n  \"kind\": \"mspChangelog\",\n  \"acknowledgments\": [\n" + entries + "\n  ]\n}\n";
  return parse_ledger(json::parse(text), text, "acks.json");
}

TEST(Ledger, ReadsEntriesAndWaivesOnlyTheNamedManifestAtThatStep) {
  auto ledger = ledger_of(entry(kOld, kStable, R"(["schema/msp/transcripts/a/manifest.json","/errors/-32603"])") + ",\n" +
                          entry(kOther, kStable, R"(["transcripts/b/manifest.json"])"));
  ASSERT_TRUE(ledger) << ledger.error().render();
  ASSERT_EQ(ledger->entries.size(), 2u);
  EXPECT_EQ(ledger->entries[1].line, 5u);
  EXPECT_NE(ledger->waiver("a", kOld, kStable), nullptr);
  EXPECT_EQ(ledger->waiver("a", kOther, kStable), nullptr);  // another pin
  EXPECT_EQ(ledger->waiver("a", kOld, kOther), nullptr);     // another stable step
  EXPECT_EQ(ledger->waiver("ab", kOld, kStable), nullptr);   // another scenario
  EXPECT_NE(ledger->waiver("b", kOther, kStable), nullptr);  // spelled relative to schema/msp
  EXPECT_EQ(ledger->waiver("-32603", kOld, kStable), nullptr);
}

TEST(Ledger, AMalformedEntryFailsClosedNamingTheRuleAndLine) {
  struct Case {
    std::string entry, rule;
  };
  const std::string ok = entry(kOld, kStable, R"(["transcripts/a/manifest.json"])");
  const std::vector<Case> cases = {
      {entry(kOld, kStable, R"(["transcripts/a/manifest.json"])", "short"), "ledger.rationale"},
      {entry(kOld, kStable, R"(["transcripts/a/manifest.json"])", "        padded  "), "ledger.rationale"},
      {entry(kOld, kStable, R"(["transcripts/a/manifest.json"])", "long enough", "208"), "ledger.tracking-issue"},
      {entry(kOld, kStable, R"(["transcripts/a/manifest.json"])", "long enough", "#20x"), "ledger.tracking-issue"},
      {entry(kOld, kStable, R"([])"), "ledger.changes"},
      {entry(kOld, kStable, R"([""])"), "ledger.changes"},
      {entry(kOld, kStable, R"("transcripts/a/manifest.json")"), "ledger.changes"},
      {entry("sha256:abc", kStable, R"(["x"])"), "ledger.fingerprint"},
      {entry(kOld, kStable, R"(["x"])", "long enough", "#1", "acknowledgment"), "ledger.kind"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.entry);
    auto ledger = ledger_of(ok + ",\n" + c.entry);
    ASSERT_FALSE(ledger);
    EXPECT_EQ(ledger.error().kind, ErrorKind::usage);  // exit 2
    EXPECT_EQ(ledger.error().rule, c.rule);
    EXPECT_EQ(ledger.error().line, 5u);
    EXPECT_EQ(ledger.error().file, "acks.json");
    EXPECT_NE(ledger.error().message.find("entry 2"), std::string::npos) << ledger.error().message;
  }
  auto url = ledger_of(entry(kOld, kStable, R"(["x"])", "long enough", "https://example.org/issues/1"));
  EXPECT_TRUE(url) << url.error().render();
}

TEST(Ledger, AnAbsentLedgerWaivesNothingAndANonJsonOneFailsClosed) {
  TempDir tmp;
  auto absent = read_ledger(tmp / "acknowledgments.json");
  ASSERT_TRUE(absent);
  EXPECT_FALSE(absent->present);
  EXPECT_EQ(absent->waiver("a", kOld, kStable), nullptr);
  test::write_text(tmp / "acknowledgments.json", "{\n  \"acknowledgments\": [\n");
  auto broken = read_ledger(tmp / "acknowledgments.json");
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().kind, ErrorKind::usage);
  EXPECT_EQ(broken.error().rule, "ledger.json");
}

TEST(Ledger, ThePublicLedgerIsWellFormed) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  auto ledger = read_ledger(test::shared_corpus() / "changelog" / "acknowledgments.json");
  ASSERT_TRUE(ledger) << ledger.error().render();
  EXPECT_EQ(ledger->entries.size(), 272u);
  EXPECT_GT(ledger->entries.back().line, ledger->entries.front().line);
}

// The changes from `before` to `after`, as "pointer kind" lines.
std::vector<std::string> changes(const std::string& before, const std::string& after) {
  std::vector<std::string> out;
  for (const SchemaChange& c : compare_schemas(json::parse(before), json::parse(after)))
    out.push_back(c.pointer + " " + std::string(to_string(c.kind)));
  return out;
}

using Lines = std::vector<std::string>;

TEST(Drift, AddedMethodsDefinitionsOptionalMembersAndRowsAreAdditive) {
  const std::string before = R"({"methods":{"a/b":{"params":{"$ref":"#/$defs/P"}}},
    "$defs":{"P":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}},
    "errors":[{"code":-32600,"kind":"invalidRequest"}]})";
  const std::string after = R"({"methods":{"a/b":{"params":{"$ref":"#/$defs/P"}},"goal/edit":{"params":{}}},
    "$defs":{"P":{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"integer"}},"required":["x"]},"Q":{}},
    "errors":[{"code":-32600,"kind":"invalidRequest"},{"code":-32042,"kind":"boundary"}]})";
  EXPECT_EQ(changes(before, after), (Lines{"/$defs/P/properties/y added", "/$defs/Q added", "/errors/-32042 added",
                                           "/methods/goal~1edit added"}));
  EXPECT_EQ(classify(compare_schemas(json::parse(before), json::parse(after))), DriftClass::additive);
}

TEST(Drift, RemovedRetypedAndRequiredAreNonAdditive) {
  const std::string before = R"({"$defs":{"P":{"type":"object","properties":{"x":{"type":"string"},"z":{"type":"string"}},"required":["x"]},"Gone":{}}})";
  const std::string after = R"({"$defs":{"P":{"type":"object","properties":{"x":{"type":["string","null"]},"z":{"type":"string"},"n":{"type":"string"}},"required":["x","z","n"]}}})";
  EXPECT_EQ(changes(before, after),
            (Lines{"/$defs/Gone removed", "/$defs/P/properties/n added required", "/$defs/P/properties/x/type retyped",
                   "/$defs/P/required made required"}));
  EXPECT_EQ(classify(compare_schemas(json::parse(before), json::parse(after))), DriftClass::non_additive);
  EXPECT_EQ(changes(R"({"required":["a","b"],"properties":{"a":{},"b":{}}})", R"({"required":["a"],"properties":{"a":{},"b":{}}})"),
            (Lines{"/required no longer required"}));
  EXPECT_EQ(changes(R"({"a":{"$ref":"#/$defs/A"}})", R"({"a":{"$ref":"#/$defs/B"}})"), (Lines{"/a/$ref retyped"}));
  EXPECT_EQ(changes(R"({"a":{"type":"string"}})", R"({"a":{"type":"string","maxLength":3}})"),
            (Lines{"/a/maxLength changed"}));
}

TEST(Drift, OnlyOpenEnumsMayGainValues) {
  EXPECT_EQ(changes(R"({"e":{"enum":["a"],"x-msp-openness":"open"}})", R"({"e":{"enum":["a","b"],"x-msp-openness":"open"}})"),
            (Lines{"/e/enum open enum value added"}));
  EXPECT_EQ(changes(R"({"e":{"enum":["a","b"],"x-msp-openness":"open"}})", R"({"e":{"enum":["a"],"x-msp-openness":"open"}})"),
            (Lines{"/e/enum enum changed"}));
  EXPECT_EQ(changes(R"({"e":{"enum":["a"],"x-msp-openness":"closed"}})", R"({"e":{"enum":["a","b"],"x-msp-openness":"closed"}})"),
            (Lines{"/e/enum enum changed"}));
  EXPECT_EQ(changes(R"({"e":{"enum":["a"]}})", R"({"e":{"enum":["a","b"]}})"), (Lines{"/e/enum enum changed"}));
  EXPECT_EQ(changes(R"({"e":{"enum":["a"],"x-msp-openness":"closed"}})", R"({"e":{"enum":["a"],"x-msp-openness":"open"}})"),
            (Lines{"/e/x-msp-openness changed"}));
}

TEST(Drift, DescriptionsAreAnnotationsAndNeverNonAdditive) {
  const auto c = compare_schemas(json::parse(R"({"m":{"description":"old","type":"string"}})"),
                                 json::parse(R"({"m":{"description":"new","type":"string"}})"));
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, ChangeKind::annotation);
  EXPECT_EQ(classify(c), DriftClass::additive);
  EXPECT_TRUE(compare_schemas(json::parse(R"({"a":1})"), json::parse(R"({"a":1})")).empty());
}

TEST(Drift, RowsOfKeyedTablesAreAddressedByTheirKey) {
  EXPECT_EQ(changes(R"({"errors":[{"code":-32603,"overrideKinds":["a"]},{"code":-1}]})",
                    R"({"errors":[{"code":-32603,"overrideKinds":["a","b"]}]})"),
            (Lines{"/errors/-1 removed", "/errors/-32603/overrideKinds changed"}));
}

TEST(Drift, TheReleaseBaselineToStableDriftIsNonAdditiveAndNamesPointers) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  BundleIndex index = index_bundles({test::shared_corpus()});
  EXPECT_EQ(index.by_fingerprint.size(), 3u);  // stable, release-baseline, experimental
  auto drift = index.drift("sha256:28ef2488d457d2cd071a3d620ba3821711f0a5120b32dd7408fbf465c1500402",
                           test::shared_corpus() / "stable");
  ASSERT_TRUE(drift) << drift.error().render();
  EXPECT_EQ(drift->kind, DriftClass::non_additive);
  EXPECT_EQ(drift->pinned_bundle, test::shared_corpus() / "release-baseline");
  bool goal_edit = false;
  for (const SchemaChange& c : drift->changes) goal_edit |= c.pointer == "/methods/goal~1edit" && c.kind == ChangeKind::added;
  EXPECT_TRUE(goal_edit);
  auto unknown = index.drift(kOld, test::shared_corpus() / "stable");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->kind, DriftClass::unclassified);
}

// `leaf` wrapped `levels` times in `open` ... `close` ({"items": ... }).
std::string wrapped(std::size_t levels, std::string_view open, std::string_view close, std::string_view leaf) {
  std::string out;
  out.reserve(levels * (open.size() + close.size()) + leaf.size());
  for (std::size_t i = 0; i < levels; ++i) out += open;
  out += leaf;
  for (std::size_t i = 0; i < levels; ++i) out += close;
  return out;
}

std::string repeated(std::size_t n, std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

// Two bundles alike but for one keyword deep down: 1,000 and 10,000 levels (the parser's limit)
// through objects ("items"), name maps ("properties") and arrays ("allOf"). One change, named by
// its whole pointer. The walk was cubic in the depth (every level compared whole before it was
// walked, and its pointer copied): minutes at a thousand levels. Now it visits each pair of
// values once with no recursion (bench/RESULTS.md has the instruction counts).
TEST(Drift, BundlesThatDifferTenThousandLevelsDownNameTheOneChange) {
  struct Shape {
    std::string_view open, close, step;
    std::size_t per_level;  // JSON levels a step takes
  };
  const Shape shapes[] = {{R"({"items":)", "}", "/items", 1},
                          {R"({"properties":{"a":)", "}}", "/properties/a", 2},
                          {R"({"allOf":[)", "]}", "/allOf/0", 2}};
  for (const std::size_t depth : {std::size_t{1000}, std::size_t{10000}}) {
    for (const Shape& shape : shapes) {
      const std::size_t steps = (depth - 1) / shape.per_level;
      SCOPED_TRACE(fmt::format("{} levels of {}", depth, shape.step));
      auto before = parse_json(wrapped(steps, shape.open, shape.close, R"({"type":"string","description":"x"})"));
      auto after = parse_json(wrapped(steps, shape.open, shape.close, R"({"type":"integer","description":"x"})"));
      ASSERT_TRUE(before && after);
      const std::vector<SchemaChange> found = compare_schemas(*before, *after);
      ASSERT_EQ(found.size(), 1u);
      EXPECT_EQ(found[0].pointer, repeated(steps, shape.step) + "/type");
      EXPECT_EQ(found[0].kind, ChangeKind::retyped);
      EXPECT_TRUE(compare_schemas(*before, *before).empty());
    }
  }
}

// A table of many rows (keyed by `code`) compared row by row through a lookup, not a search.
TEST(Drift, TablesOfManyRowsAreComparedByKey) {
  json::array a, b;
  for (int i = 0; i < 5000; ++i) {
    a.push_back(json::object{{"code", i}, {"kind", "k"}});
    b.push_back(json::object{{"code", 4999 - i}, {"kind", i == 0 ? "changed" : "k"}});
  }
  const auto found = compare_schemas(json::object{{"errors", a}}, json::object{{"errors", b}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pointer, "/errors/4999/kind");
}

// A small schema/msp tree: stable/ and old/ bundles, scenarios pinned as given, a ledger.
struct Corpus {
  TempDir tmp;
  fs::path msp = tmp / "schema/msp";
  std::string old_schema = R"({"methods":{"a":{}},"$defs":{"E":{"enum":["x"],"x-msp-openness":"open"}}})";
  std::string stable_schema = R"({"methods":{"a":{},"b":{}},"$defs":{"E":{"enum":["x","y"],"x-msp-openness":"open"}}})";

  void bundle(const std::string& name, const std::string& fingerprint, const std::string& schema) {
    fs::create_directories(msp / name);
    test::write_text(msp / name / "manifest.json", R"({"experimental": false, "fingerprint": ")" + fingerprint + "\"}\n");
    test::write_text(msp / name / "msp.schema.json", schema);
  }
  fs::path scenario(const std::string& name, const std::string& fingerprint) {
    const fs::path dir = msp / "transcripts" / name;
    fs::create_directories(dir);
    test::write_text(dir / "manifest.json", "{\n  \"kind\": \"mspTranscript\",\n  \"scenario\": \"" + name +
                                                "\",\n  \"fingerprint\":   \"" + fingerprint +
                                                "\",\n  \"zz-unknown\": [1, 2]\n}\n");
    test::write_text(dir / "transcript.ndjson", "");
    return dir / "manifest.json";
  }
  void ledger(const std::string& entries) {
    fs::create_directories(msp / "changelog");
    test::write_text(msp / "changelog/acknowledgments.json", R"({"kind":"mspChangelog","acknowledgments":[)" + entries + "]}");
  }
  Corpus() {
    bundle("stable", kStable, stable_schema);
    bundle("old", kOld, old_schema);
  }
};

// The ledger's own text with `kind` (the document's) and one entry.
std::string ledger_text(const std::string& kind, const std::string& entry_text) {
  return "{\"kind\":\"" + kind + "\",\"acknowledgments\":[" + entry_text + "]}";
}

// A megabyte in each member of the ledger in turn, then in several at once. Before, a
// backtracking regular expression checked trackingIssue and recursed once per character:
// SIGSEGV in staleness and repin. Now every member is read in one pass; a member the ledger
// refuses is quoted cut short in the error (a line, not a megabyte); one it accepts is used.
TEST(Ledger, MegabyteStringsInEveryMemberNeitherCrashNorFloodStalenessAndRepin) {
  const std::string mb(std::size_t{1} << 20, 'a');
  const std::string digits(std::size_t{1} << 20, '7');
  const std::string waived = R"(["schema/msp/transcripts/waived/manifest.json"])";
  const std::string ok = entry(kOld, kStable, waived);
  struct Case {
    std::string ledger;
    std::string rule;  // "" when the ledger is read
    PinState waived_state = PinState::acknowledged;
  };
  const std::vector<Case> cases = {
      {ledger_text("mspChangelog", entry(kOld, kStable, waived, "remains valid", "https://example.org/" + mb)), ""},
      {ledger_text("mspChangelog", entry(kOld, kStable, waived, "remains valid", "#" + digits)), ""},
      {ledger_text("mspChangelog", entry(kOld, kStable, waived, "remains valid", "https://example.org/" + mb + " x")),
       "ledger.tracking-issue"},
      {ledger_text("mspChangelog", entry(kOld, kStable, waived, "remains valid", "#" + digits + "x")),
       "ledger.tracking-issue"},
      {ledger_text("mspChangelog", entry(kOld, kStable, waived, "remains valid", "https://" + mb + "/" + mb)), ""},
      {ledger_text("mspChangelog", entry(kOld, kStable, waived, "remains valid", mb)), "ledger.tracking-issue"},
      {ledger_text("mspChangelog", entry(kOld, kStable, waived, mb)), ""},
      {ledger_text("mspChangelog", entry(kOld, kStable, R"(["schema/msp/transcripts/waived/manifest.json",")" + mb + "\"]")),
       ""},
      {ledger_text("mspChangelog", entry(kOld, kStable, "[\"" + mb + "\"]")), "", PinState::stale},
      {ledger_text("mspChangelog", entry("sha256:" + mb, kStable, waived)), "ledger.fingerprint"},
      {ledger_text("mspChangelog", entry(kOld, "sha256:" + digits, waived)), "ledger.fingerprint"},
      {ledger_text("mspChangelog", entry(kOld, kStable, waived, "remains valid", "#208", mb)), "ledger.kind"},
      {ledger_text(mb, ok), "ledger.document"},
      {ledger_text("mspChangelog", entry(kOld, kStable, "[\"schema/msp/transcripts/waived/manifest.json\",\"" + mb + "\"]",
                                         mb, "https://example.org/" + mb)),
       ""},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.ledger.substr(0, 200));
    Corpus c;
    c.scenario("cur", kStable);
    c.scenario("waived", kOld);
    fs::create_directories(c.msp / "changelog");
    test::write_text(c.msp / "changelog/acknowledgments.json", k.ledger);
    auto report = check_staleness({c.tmp.path(), {}});
    RepinOptions options;
    options.staleness.root = c.tmp.path();
    options.dry_run = true;
    auto plan = repin(options);
    if (!k.rule.empty()) {
      ASSERT_FALSE(report);
      EXPECT_EQ(report.error().rule, k.rule);
      EXPECT_EQ(exit_code(report.error().kind), 2);
      EXPECT_LT(report.error().render().size(), 600u) << report.error().render().substr(0, 600);
      ASSERT_FALSE(plan);
      EXPECT_EQ(plan.error().rule, k.rule);
      continue;
    }
    ASSERT_TRUE(report) << report.error().render().substr(0, 600);
    ASSERT_EQ(report->pins.size(), 2u);
    EXPECT_EQ(report->pins[1].state, k.waived_state);
    std::ostringstream text, json_out;
    render_staleness_text(*report, text);
    render_staleness_json(*report, json_out);
    EXPECT_EQ(json::parse(json_out.str()).at("pins").at(1).at("state").as_string(), to_string(k.waived_state));
    ASSERT_TRUE(plan) << plan.error().render().substr(0, 600);
    std::ostringstream repin_text;
    render_repin_text(*plan, repin_text);
    EXPECT_NE(repin_text.str().find("2 manifests"), std::string::npos);
  }
}

TEST(Staleness, CurrentAcknowledgedAndStalePinsWithTheirDrift) {
  Corpus c;
  c.scenario("cur", kStable);
  c.scenario("waived", kOther);
  c.scenario("stale-additive", kOld);
  c.scenario("stale-unknown", kOther);
  c.ledger(entry(kOther, kStable, R"(["schema/msp/transcripts/waived/manifest.json"])"));
  for (const fs::path& root : {c.tmp.path(), c.msp}) {
    auto report = check_staleness({root, {}});
    ASSERT_TRUE(report) << report.error().render();
    ASSERT_EQ(report->pins.size(), 4u);
    EXPECT_EQ(report->pins[0].scenario, "cur");
    EXPECT_EQ(report->pins[0].state, PinState::current);
    EXPECT_EQ(report->pins[1].state, PinState::stale);  // stale-additive
    EXPECT_EQ(report->pins[1].line, 4u);
    EXPECT_EQ(report->pins[2].state, PinState::stale);  // stale-unknown: kOther, this manifest not waived
    EXPECT_EQ(report->pins[3].state, PinState::acknowledged);
    EXPECT_EQ(report->drift.at(kOld).kind, DriftClass::additive);
    EXPECT_EQ(report->drift.at(kOther).kind, DriftClass::unclassified);
    EXPECT_EQ(report->exit_code(), 1);
    EXPECT_EQ(staleness_summary(*report),
              "4 manifests: 1 current, 1 acknowledged, 2 stale (2 drifted fingerprints: 1 additive, 0 non-additive, 1 "
              "unclassified)");
  }
  // --bundles elsewhere: the old bundle is not found there.
  auto elsewhere = check_staleness({c.tmp.path(), {c.msp / "stable"}});
  ASSERT_TRUE(elsewhere);
  EXPECT_EQ(elsewhere->drift.at(kOld).kind, DriftClass::unclassified);
}

// A pin that is not a string is reported as the JSON text it was: 1e400 (an exact number the
// parser holds behind a marker byte) was printed as that raw byte and the text, and written to
// JSON as a rounded double. Never current, never a drift lookup.
TEST(Staleness, APinThatIsNotAStringIsReportedAsTheJsonTextItWas) {
  Corpus c;
  c.scenario("cur", kStable);
  const std::vector<std::pair<std::string, std::string>> pins = {
      {"big", "1e400"}, {"digits", "123456789012345678901234567890"}, {"obj", R"({"sha256": [1, 2.50]})"},
      {"null", "null"}};
  for (const auto& [name, pin] : pins) {
    fs::create_directories(c.msp / "transcripts" / name);
    test::write_text(c.msp / "transcripts" / name / "manifest.json",
                     "{\n  \"kind\": \"mspTranscript\",\n  \"scenario\": \"" + name + "\",\n  \"fingerprint\": " + pin + "\n}\n");
    test::write_text(c.msp / "transcripts" / name / "transcript.ndjson", "");
  }
  auto report = check_staleness({c.tmp.path(), {}});
  ASSERT_TRUE(report) << report.error().render();
  ASSERT_EQ(report->pins.size(), 5u);
  std::ostringstream text, json_out;
  render_staleness_text(*report, text);
  render_staleness_json(*report, json_out);
  RepinOptions options;
  options.staleness.root = c.tmp.path();
  options.dry_run = true;
  auto plan = repin(options);
  ASSERT_TRUE(plan) << plan.error().render();
  std::ostringstream repin_text;
  render_repin_text(*plan, repin_text);
  for (const std::string& out : {text.str(), repin_text.str()}) {
    for (unsigned char b : out) EXPECT_TRUE(b == '\n' || (b >= 0x20 && b < 0x7F)) << int(b) << " in " << out;
    EXPECT_NE(out.find("pinned at 1e400 (not a string)"), std::string::npos) << out;
    EXPECT_NE(out.find("pinned at 123456789012345678901234567890 (not a string)"), std::string::npos) << out;
    EXPECT_NE(out.find(R"(pinned at {"sha256":[1,2.5]} (not a string))"), std::string::npos) << out;
  }
  const std::string doc = json_out.str();
  EXPECT_NE(doc.find(R"("fingerprint":1e400)"), std::string::npos) << doc;
  EXPECT_NE(doc.find(R"("fingerprint":123456789012345678901234567890)"), std::string::npos) << doc;
  EXPECT_NE(doc.find(R"("fingerprint":{"sha256":[1,2.5]})"), std::string::npos) << doc;
  EXPECT_NE(doc.find(R"("fingerprint":null)"), std::string::npos) << doc;
  for (const Pin& p : report->pins) {
    if (p.scenario != "cur") {
      EXPECT_EQ(p.state, PinState::stale) << p.scenario;
    }
  }
  EXPECT_EQ(plan->count(RepinAction::repinned), 0u);
}

TEST(Staleness, PassesWhenEveryPinIsCurrentOrWaivedAndFailsClosedOnABadLedger) {
  Corpus c;
  c.scenario("cur", kStable);
  c.scenario("waived", kOld);
  c.ledger(entry(kOld, kStable, R"(["schema/msp/transcripts/waived/manifest.json"])"));
  auto report = check_staleness({c.tmp.path(), {}});
  ASSERT_TRUE(report);
  EXPECT_EQ(report->exit_code(), 0);
  c.ledger(entry(kOld, kStable, R"(["schema/msp/transcripts/waived/manifest.json"])", "too few"));
  auto broken = check_staleness({c.tmp.path(), {}});
  ASSERT_FALSE(broken);
  EXPECT_EQ(exit_code(broken.error().kind), 2);
  auto nowhere = check_staleness({c.tmp / "nothing", {}});
  ASSERT_FALSE(nowhere);
  EXPECT_EQ(exit_code(nowhere.error().kind), 2);
}

TEST(Staleness, ThePublicCorpusHasThirtyFourStalePinsTheLedgerDoesNotWaive) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  auto report = check_staleness({test::shared_corpus(), {}});
  ASSERT_TRUE(report) << report.error().render();
  EXPECT_EQ(report->pins.size(), 37u);
  EXPECT_EQ(report->count(PinState::current), 3u);
  EXPECT_EQ(report->count(PinState::acknowledged), 0u);
  EXPECT_EQ(report->count(PinState::stale), 34u);
  EXPECT_EQ(report->drift.size(), 3u);
  for (const auto& [fingerprint, drift] : report->drift) EXPECT_EQ(drift.kind, DriftClass::unclassified) << fingerprint;
  std::ostringstream json_out;
  render_staleness_json(*report, json_out);
  EXPECT_EQ(json::parse(json_out.str()).at("summary").at("stale"), 34);
}

TEST(Repin, WithFingerprintReplacesTheTokenAndKeepsEveryOtherByte) {
  const std::string text = "{\n  \"kind\": \"mspTranscript\",\n  \"fingerprint\" :  \"" + kOld + "\",\n  \"x\": 1\n}";
  auto edited = with_fingerprint(text, kStable, "m.json");
  ASSERT_TRUE(edited);
  std::string expected = text;
  expected.replace(expected.find(kOld), kOld.size(), kStable);
  EXPECT_EQ(*edited, expected);
  EXPECT_FALSE(with_fingerprint(R"({"fingerprint":1})", kStable, "m.json"));
  EXPECT_FALSE(with_fingerprint(R"({"a":{"fingerprint":"x"}})", kStable, "m.json"));  // not top-level
  auto twice = with_fingerprint(R"({"fingerprint":"a","fingerprint":"b"})", kStable, "m.json");
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().rule, "manifest.fingerprint");
}

TEST(Repin, RewritesOnlyAdditiveStalePinsAndListsTheRest) {
  Corpus c;
  c.scenario("cur", kStable);
  const fs::path additive = c.scenario("stale-additive", kOld);
  const fs::path unknown = c.scenario("stale-unknown", kOther);
  const fs::path waived = c.scenario("waived", kOther);
  c.ledger(entry(kOther, kStable, R"(["schema/msp/transcripts/waived/manifest.json"])"));
  const std::string before = test::read_text(additive);
  const std::string unknown_before = test::read_text(unknown), waived_before = test::read_text(waived);
  fs::permissions(additive, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);

  RepinOptions dry;
  dry.staleness.root = c.tmp.path();
  dry.dry_run = true;
  auto plan = repin(dry);
  ASSERT_TRUE(plan) << plan.error().render();
  EXPECT_EQ(plan->count(RepinAction::repinned), 1u);
  EXPECT_EQ(plan->count(RepinAction::left), 1u);
  EXPECT_EQ(plan->count(RepinAction::acknowledged), 1u);
  EXPECT_EQ(plan->exit_code(), 1);
  EXPECT_EQ(test::read_text(additive), before);  // a dry run writes nothing
  std::ostringstream text;
  render_repin_text(*plan, text);
  EXPECT_NE(text.str().find("would repin " + kOld + " -> " + kStable), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("[repin.unclassified]"), std::string::npos) << text.str();

  RepinOptions real = dry;
  real.dry_run = false;
  auto done = repin(real);
  ASSERT_TRUE(done) << done.error().render();
  std::string expected = before;
  expected.replace(expected.find(kOld), kOld.size(), kStable);
  EXPECT_EQ(test::read_text(additive), expected);
  EXPECT_EQ(fs::status(additive).permissions(), fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(test::read_text(unknown), unknown_before);
  EXPECT_EQ(test::read_text(waived), waived_before);
  // Now current: a second run has nothing to repin.
  auto again = repin(real);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->count(RepinAction::repinned), 0u);
  EXPECT_EQ(again->count(RepinAction::current), 2u);
}

TEST(Repin, AFailedWriteIsAnInfrastructureError) {
  Corpus c;
  c.scenario("stale-additive", kOld);
  RepinOptions options;
  options.staleness.root = c.tmp.path();
  options.write = [](const fs::path& path, std::string_view) -> Result<void> {
    return Error::unreadable(path.string(), "cannot write: No space left on device");
  };
  auto failed = repin(options);
  ASSERT_FALSE(failed);
  EXPECT_EQ(exit_code(failed.error().kind), 3);
}

}  // namespace
}  // namespace msptk::maintenance
