#include "msptk/normalizer/mask.hpp"
#include "msptk/transcript/display.hpp"
#include "msptk/transcript/manifest.hpp"
#include "msptk/transcript/scenario.hpp"
#include "msptk/validator/render.hpp"
#include "msptk/validator/rules.hpp"
#include "msptk/validator/validator.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/text_key.hpp"
#include "msptk/transcript/writer.hpp"
#include "test_support.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

namespace msptk {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

constexpr const char* kStable = "sha256:7c94f153c41659cb3f1bd3c3e04438be254644cb2a97d65d48edc7449b74858a";

std::size_t count_rule(const ScenarioReport& report, std::string_view rule) {
  std::size_t n = 0;
  for (const Finding& f : report.findings) n += f.rule == rule;
  return n;
}

// A small valid scenario: handshake, then a session/start answered.
const char* const kTranscript =
    R"({"dir":"client","raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"clientInfo\":{\"name\":\"t\",\"version\":\"0\"}}}"})"
    "\n"
    R"({"dir":"server","raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"platformOs\":\"linux\"}}"})"
    "\n"
    R"({"dir":"client","raw":"{\"jsonrpc\":\"2.0\",\"method\":\"initialized\"}"})"
    "\n"
    R"({"dir":"client","raw":"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/start\",\"params\":{\"commandId\":\"c1\"}}"})"
    "\n"
    R"({"dir":"server","raw":"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"session\":{\"status\":\"idle\"}}}"})"
    "\n";

Manifest small_manifest(const std::string& name) {
  Manifest m;
  m.scenario = name;
  m.provenance = "hand-authored";
  m.fingerprint = kStable;
  m.transports = {"stdio"};
  m.normalize = {"id"};
  m.source = {SourceRange{"1-3", "seed 000 handshake", 1, 3}, SourceRange{"4-5", "session/start", 4, 5}};
  return m;
}

fs::path make_scenario(const fs::path& parent, const std::string& name, const std::string& transcript = kTranscript) {
  fs::create_directories(parent / name);
  test::write_text(parent / name / "transcript.ndjson", transcript);
  EXPECT_TRUE(write_manifest(parent / name / "manifest.json", small_manifest(name)));
  return parent / name;
}

// validate and the verbs that refuse a bad normalize list (diff, normalize, serve-fixture,
// replay: mask_spec_for) name the same line and rule for the same manifest problem.
TEST(Validator, NamesTheSameLineAndRuleAsDiffForABadNormalizeList) {
  TempDir tmp;
  const std::vector<std::string> normalize_members = {
      "\"normalize\": [\n    \"id\",\n    \"params.commandId\",\n    \"params.sessionId\"\n  ]",  // unregistered, 3rd
      "\"normalize\": [\n    \"id\",\n\n    \"not a [path\"\n  ]",                             // not a path
      "\"normalize\": [\n    \"id\",\n    7\n  ]",                                             // not a string
      "\"normalize\":\n\n   \"id\"",                                                           // not a list
  };

  for (const std::string& member : normalize_members) {
    SCOPED_TRACE(member);
    const fs::path dir = make_scenario(tmp.path(), "s");
    std::string text = test::read_text(dir / "manifest.json");
    const std::size_t at = text.find("\"normalize\"");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, text.find(']', at) + 1 - at, member);
    // Something before it on more lines, so that the first mention of "normalize" is elsewhere.
    text.insert(1, "\n  \"x-notes\": {\"normalize\": \"mentioned\"},\n");
    test::write_text(dir / "manifest.json", text);

    const ScenarioReport report = validate_scenario(dir, {});
    const Finding* finding = nullptr;
    for (const Finding& f : report.findings)
      if (f.severity == Severity::error && f.rule.starts_with("manifest.")) finding = finding ? finding : &f;
    ASSERT_NE(finding, nullptr);
    auto scenario = load_scenario(dir);
    ASSERT_TRUE(scenario);
    auto spec = mask_spec_for(*scenario, Registry::builtin(), {}, MaskMode::unify);
    ASSERT_FALSE(spec);
    EXPECT_EQ(spec.error().line, finding->line);
    EXPECT_EQ(spec.error().rule, finding->rule);
    EXPECT_EQ(spec.error().message, finding->message);
    EXPECT_GT(finding->line, 3u);
    fs::remove_all(dir);
  }
}

TEST(Validator, PublicCorpusValidatesWithoutErrors) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  const ValidationReport report = validate_paths({test::shared_transcripts()}, ValidateOptions{});
  const ValidationSummary s = report.summary();
  EXPECT_EQ(s.scenarios, 37u);
  EXPECT_EQ(s.ok, 37u);
  EXPECT_EQ(s.errors, 0u);
  EXPECT_EQ(s.problems, 0u);
  EXPECT_EQ(report.exit_code(), 0);
  for (const ScenarioReport& scenario : report.scenarios)
    for (const Finding& f : scenario.findings) ADD_FAILURE() << render(f);
}

TEST(Validator, PublicCorpusWithSchemaAndStableManifest) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  ValidateOptions options;
  auto schema = schema::Bundle::load(test::shared_corpus() / "stable" / "msp.schema.json");
  ASSERT_TRUE(schema) << schema.error().render();
  options.schema = std::move(*schema);
  auto stable = read_stable_fingerprint(test::shared_corpus() / "stable" / "manifest.json");
  ASSERT_TRUE(stable);
  EXPECT_EQ(*stable, kStable);
  options.stable_fingerprint = *stable;
  const ValidationReport report = validate_paths({test::shared_transcripts()}, options);
  const ValidationSummary s = report.summary();
  // userinput-cancel-round-trip (pinned to an older bundle) sends userInput/settled without
  // decidedAt, which the stable bundle requires.
  EXPECT_EQ(s.errors, 1u);
  EXPECT_EQ(s.notes, 2u);     // the two sdk-tolerance scenarios: an unknown item kind, an unknown method
  EXPECT_EQ(s.warnings, 3u);  // three stale fingerprints, one warning each
  EXPECT_EQ(s.schema_checked + s.envelope_only, 428u);
  ASSERT_EQ(report.corpus_findings.size(), 3u);
  EXPECT_NE(report.corpus_findings[0].message.find("stale pin in 28 scenarios"), std::string::npos);
  for (const ScenarioReport& scenario : report.scenarios) {
    for (const Finding& f : scenario.findings) {
      if (f.severity == Severity::error) {
        EXPECT_EQ(scenario.scenario, "userinput-cancel-round-trip");
        EXPECT_EQ(f.line, 14u);
        EXPECT_EQ(f.rule, "frame.schema");
        EXPECT_NE(f.message.find("params: missing required member \"decidedAt\""), std::string::npos) << f.message;
        continue;
      }
      EXPECT_EQ(f.severity, Severity::note) << render(f);
      EXPECT_EQ(scenario.scenario.rfind("tolerance-", 0), 0u) << render(f);
    }
  }
}

TEST(Validator, OwnCorpusIsValidAndPinnedToTheStableBundle) {
  const fs::path corpus = test::source_dir() / "corpus";
  ValidateOptions options;
  options.stable_fingerprint = kStable;
  const ValidationReport report = validate_paths({corpus}, options);
  EXPECT_GE(report.scenarios.size(), 6u);
  EXPECT_EQ(report.exit_code(), 0);
  EXPECT_TRUE(report.corpus_findings.empty());
  for (const ScenarioReport& scenario : report.scenarios) {
    for (const Finding& f : scenario.findings) ADD_FAILURE() << render(f);
    auto manifest = read_manifest(corpus / scenario.scenario / "manifest.json");
    ASSERT_TRUE(manifest);
    EXPECT_EQ(manifest->manifest.provenance, "hand-authored") << scenario.scenario;
    EXPECT_EQ(manifest->manifest.id_seed, 7);
    EXPECT_EQ(manifest->manifest.clock_start_ms, 1754590931000);
    ASSERT_FALSE(manifest->manifest.source.empty());
    bool cites_seed = false;
    for (const SourceRange& s : manifest->manifest.source) cites_seed = cites_seed || s.cite.find("seed 000") == 0;
    EXPECT_TRUE(cites_seed) << scenario.scenario;
  }
}

// Each rule of the catalogue is pinned by a golden case whose stdout shows it, and every rule
// id a golden case shows is in the catalogue.
TEST(Validator, EveryRuleHasAGoldenCase) {
  const fs::path suite = test::source_dir() / "tests" / "golden" / "validate";
  std::set<std::string> shown;
  for (const auto& entry : fs::directory_iterator(suite)) {
    if (entry.path().filename() == "list-rules") continue;
    std::istringstream out(test::read_text(entry.path() / "stdout"));
    for (std::string line; std::getline(out, line);) {
      const bool finding = line.find(": error: ") != std::string::npos || line.find(": warning: ") != std::string::npos ||
                           line.find(": note: ") != std::string::npos;
      const std::size_t open = line.rfind(" [");
      if (finding && open != std::string::npos && line.back() == ']') shown.insert(line.substr(open + 2, line.size() - open - 3));
    }
  }
  for (const RuleInfo& rule : rule_catalogue()) EXPECT_TRUE(shown.count(std::string(rule.id))) << rule.id;
  for (const std::string& id : shown) EXPECT_NE(find_rule(id), nullptr) << id;
}

TEST(Validator, BrokenCopyOfACorpusScenarioNamesRuleAndLine) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  TempDir tmp;
  const fs::path copy = tmp / "renamed";
  fs::copy(test::shared_transcripts() / "framing-tolerance-cr-input", copy);
  const ScenarioReport report = validate_scenario(copy, ValidateOptions{});
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].rule, "manifest.scenario");
  EXPECT_EQ(report.findings[0].line, 4u);
  EXPECT_FALSE(report.ok());
}

// A scenario id holding a control character passed when the folder had the same name, and a
// newline in it split every report line that starts with it: refused under manifest.scenario
// (C0 controls, DEL, C1 controls), and the text report shows it escaped on one line.
TEST(Validator, AScenarioIdHoldingAControlCharacterIsRefused) {
  TempDir tmp;
  for (const std::string name : {"line\nbreak", "tab\there", "esc\x1b[31m", "del\x7f", "c1\xc2\x9b"}) {
    SCOPED_TRACE(display_text(name));
    const ScenarioReport report = validate_scenario(make_scenario(tmp.path(), name), ValidateOptions{});
    ASSERT_EQ(report.findings.size(), 1u);
    EXPECT_EQ(report.findings[0].rule, "manifest.scenario");
    EXPECT_NE(report.findings[0].message.find("control character"), std::string::npos) << report.findings[0].message;
    EXPECT_FALSE(report.ok());
  }
  ValidationReport corpus;
  corpus.scenarios.push_back(validate_scenario(tmp / "line\nbreak", ValidateOptions{}));
  std::ostringstream out, err;
  render_text(corpus, out, err);
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;  // the finding and the summary
  EXPECT_NE(text.find("line\\nbreak"), std::string::npos) << text;
  EXPECT_TRUE(validate_scenario(make_scenario(tmp.path(), "plain-\xc3\xa9t\xc3\xa9"), ValidateOptions{}).ok());
}

TEST(Validator, RejectionSettledByIdAndByLaterResponse) {
  TempDir tmp;
  // An invalid envelope (no jsonrpc) with id 3, rejected with -32600 id 3: legal.
  std::string t = kTranscript;
  t += R"({"dir":"client","raw":"{\"id\":3,\"method\":\"x\"}"})" "\n";
  t += R"({"dir":"server","raw":"{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32600,\"message\":\"invalid\"}}"})" "\n";
  const ScenarioReport ok = validate_scenario(make_scenario(tmp.path(), "ok", t), ValidateOptions{});
  EXPECT_TRUE(ok.findings.empty()) << (ok.findings.empty() ? "" : render(ok.findings[0]));
  // Not JSON, then a request answered before any rejection: the frame is reported.
  std::string u = kTranscript;
  u += R"({"dir":"client","raw":"{oops"})" "\n";
  u += R"({"dir":"client","raw":"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"x\"}"})" "\n";
  u += R"({"dir":"server","raw":"{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}"})" "\n";
  const ScenarioReport bad = validate_scenario(make_scenario(tmp.path(), "bad", u), ValidateOptions{});
  ASSERT_EQ(bad.findings.size(), 1u);
  EXPECT_EQ(bad.findings[0].rule, "frame.json");
  EXPECT_EQ(bad.findings[0].line, 6u);
  EXPECT_NE(bad.findings[0].message.find("later request of line 7"), std::string::npos);
}

TEST(Validator, SourceRangeUsesTheTranscriptLength) {
  TempDir tmp;
  const fs::path dir = make_scenario(tmp.path(), "short");
  Manifest m = small_manifest("short");
  m.source.push_back(SourceRange{"6", "past the end", 6, 6});
  ASSERT_TRUE(write_manifest(dir / "manifest.json", m));
  const ScenarioReport report = validate_scenario(dir, ValidateOptions{});
  EXPECT_EQ(count_rule(report, "manifest.source-range"), 1u);
}

TEST(Validator, RegistryExtensionAllowsANormalizePath) {
  TempDir tmp;
  const fs::path dir = make_scenario(tmp.path(), "norm");
  Manifest m = small_manifest("norm");
  m.normalize = {"id", "result.items[].id"};
  ASSERT_TRUE(write_manifest(dir / "manifest.json", m));
  ValidateOptions options;
  EXPECT_EQ(count_rule(validate_scenario(dir, options), "manifest.normalize-registry"), 1u);
  ASSERT_TRUE(options.registry.add("result.items[].id"));
  EXPECT_EQ(count_rule(validate_scenario(dir, options), "manifest.normalize-registry"), 0u);
}

TEST(Validator, UnreadableTranscriptIsAProblemNotAFinding) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads files whatever their mode";
  TempDir tmp;
  const fs::path dir = make_scenario(tmp.path(), "locked");
  fs::permissions(dir / "transcript.ndjson", fs::perms::none);
  const ValidationReport report = validate_paths({dir}, ValidateOptions{});
  ASSERT_EQ(report.scenarios.size(), 1u);
  ASSERT_EQ(report.scenarios[0].problems.size(), 1u);
  EXPECT_NE(report.scenarios[0].problems[0].message.find("cannot open"), std::string::npos);
  EXPECT_EQ(report.exit_code(), 3);
}

TEST(Validator, SameFolderGivenTwiceIsValidatedOnce) {
  TempDir tmp;
  const fs::path dir = make_scenario(tmp.path(), "once");
  const ValidationReport report = validate_paths({dir, tmp.path()}, ValidateOptions{});
  EXPECT_EQ(report.scenarios.size(), 1u);
  EXPECT_EQ(report.exit_code(), 0);
}

TEST(ValidationReport, SummaryAndExitCode) {
  ValidationReport report;
  report.scenarios.push_back(ScenarioReport{"a", "a", {{Severity::warning, "a/t", 1, "session.unanswered", "w"}}, {}, {}, 0, 0});
  report.scenarios.push_back(ScenarioReport{"b", "b", {{Severity::error, "b/t", 2, "frame.json", "e"},
                                                       {Severity::note, "b/t", 3, "frame.unknown-method", "n"}}, {}, {}, 0, 0});
  ValidationSummary s = report.summary();
  EXPECT_EQ(summary_line(s), "2 scenarios: 1 ok, 1 failed (1 error, 1 warning)");
  EXPECT_EQ(s.notes, 1u);
  EXPECT_EQ(report.exit_code(), 1);
  report.problems.push_back(Error::unreadable("x", "no such file or folder"));
  EXPECT_EQ(report.exit_code(), 3);
  EXPECT_EQ(render(report.scenarios[1].findings[0]), "b/t:2: error: e [frame.json]");
}

TEST(ValidationReport, JsonRendererCarriesTheFindings) {
  ValidationReport report;
  report.scenarios.push_back(ScenarioReport{"b", "b", {{Severity::error, "b/t", 2, "frame.json", "e"}}, {}, {}, 0, 0});
  std::ostringstream out;
  render_json(report, out);
  const boost::json::value doc = boost::json::parse(out.str());
  EXPECT_EQ(doc.at("summary").at("errors").as_int64(), 1);
  EXPECT_EQ(doc.at("exitCode").as_int64(), 1);
  const auto& finding = doc.at("scenarios").at(0).at("findings").at(0);
  EXPECT_EQ(finding.at("rule").as_string(), "frame.json");
  EXPECT_EQ(finding.at("line").as_int64(), 2);
  EXPECT_EQ(doc.at("scenarios").at(0).at("status").as_string(), "failed");
}

schema::Bundle tiny_bundle() {
  return schema::Bundle::from_json(boost::json::parse(R"({
    "$defs": {
      "Kind": {"enum": ["a", "b"], "type": "string", "x-msp-openness": "open"},
      "Mode": {"enum": ["x"], "type": "string", "x-msp-openness": "closed"},
      "Item": {"properties": {"kind": {"$ref": "#/$defs/Kind"}, "mode": {"anyOf": [{"$ref": "#/$defs/Mode"}, {"type": "null"}]}},
               "required": ["kind"], "type": "object"},
      "Params": {"properties": {"items": {"items": {"$ref": "#/$defs/Item"}, "type": "array"}}, "type": "object"},
      "ErrorObject": {"properties": {"code": {"type": "integer"}, "message": {"type": "string"}, "data": {"type": "object"}},
                      "required": ["code", "message"], "type": "object"}
    },
    "methods": {"initialize": {}, "do": {"params": {"$ref": "#/$defs/Params"}, "result": {"$ref": "#/$defs/Item"}}},
    "requests": {"ask": {"params": {"type": "object"}, "result": {"type": "object", "required": ["ok"]}}},
    "notifications": {"initialized": {}, "done": {"params": {"$ref": "#/$defs/Item"}}},
    "errors": [{"code": -32600, "kind": "invalidRequest", "overrideKinds": ["notInitialized"]}]
  })"), "tiny.json").value();
}

std::string line(const char* dir, const std::string& raw) {
  return boost::json::serialize(boost::json::object{{"dir", dir}, {"raw", raw}}) + "\n";
}

// A recursive schema ($ref cycle) would take time and memory growing faster than the depth of
// the instance it checks: deeper than kMaxSchemaDepth, a part is not checked, with a warning.
TEST(Validator, SchemaCheckStopsAtItsDepthLimitWithAWarning) {
  TempDir dir;
  schema::Bundle bundle = schema::Bundle::from_json(boost::json::parse(R"({
    "$defs": {"Deep": {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/Deep"}}, {"type": "string"}]},
              "Params": {"type": "object", "properties": {"v": {"$ref": "#/$defs/Deep"}}}},
    "methods": {"initialize": {}, "do": {"params": {"$ref": "#/$defs/Params"}}},
    "notifications": {"initialized": {}}
  })"), "deep.json").value();
  auto nested = [](std::size_t depth, const std::string& leaf) {
    return std::string(depth, '[') + leaf + std::string(depth, ']');
  };
  const std::string transcript =
      line("client", R"({"jsonrpc":"2.0","id":1,"method":"initialize"})") + line("server", R"({"jsonrpc":"2.0","id":1,"result":{}})") +
      line("client", R"({"jsonrpc":"2.0","method":"initialized"})") +
      line("client", R"({"jsonrpc":"2.0","id":2,"method":"do","params":{"v":)" + nested(10, "5") + "}}") +     // 4: checked
      line("client", R"({"jsonrpc":"2.0","id":3,"method":"do","params":{"v":)" + nested(5000, "5") + "}}");  // 5: too deep
  const fs::path scenario = make_scenario(dir.path(), "s", transcript);
  ValidateOptions options;
  options.schema = bundle;
  const auto started = std::chrono::steady_clock::now();
  const ScenarioReport report = validate_scenario(scenario, options);
  std::vector<std::string> got;
  for (const Finding& f : report.findings)
    if (f.rule.starts_with("frame.schema")) got.push_back(fmt::format("{} {} {}", f.line, to_string(f.severity), f.rule));
  EXPECT_EQ(got, (std::vector<std::string>{"4 error frame.schema", "5 warning frame.schema-depth"}));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));  // a hang, not a timing goal
}

TEST(Validator, SchemaFindingsByKind) {
  TempDir dir;
  const std::string handshake =
      line("client", R"({"jsonrpc":"2.0","id":1,"method":"initialize"})") + line("server", R"({"jsonrpc":"2.0","id":1,"result":{}})") +
      line("client", R"({"jsonrpc":"2.0","method":"initialized"})");
  const std::string transcript =
      handshake +
      line("client", R"({"jsonrpc":"2.0","id":2,"method":"do","params":{"items":[{"kind":"a"},{"kind":"c","mode":"y"},{}]}})") +  // 4
      line("server", R"({"jsonrpc":"2.0","id":2,"result":{"kind":7}})") +                                    // 5: result of do
      line("server", R"({"jsonrpc":"2.0","method":"done","params":{"kind":"b"}})") +                           // 6: valid
      line("server", R"({"jsonrpc":"2.0","id":"s1","method":"ask","params":{}})") +                            // 7
      line("client", R"({"jsonrpc":"2.0","id":"s1","result":{}})") +                                           // 8: result of ask
      line("client", R"({"jsonrpc":"2.0","id":3,"method":"do"})") +                                            // 9
      line("server", R"({"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"no","data":{"kind":"nope"}}})") +  // 10
      line("client", R"({"jsonrpc":"2.0","id":4,"method":"do"})") +                                            // 11
      line("server", R"({"jsonrpc":"2.0","id":4,"error":{"code":-32099,"message":"?"}})") +                    // 12
      line("server", R"({"jsonrpc":"2.0","method":"later"})");                                                 // 13
  const fs::path scenario = make_scenario(dir.path(), "s", transcript);
  ValidateOptions options;
  options.schema = tiny_bundle();
  const ScenarioReport report = validate_scenario(scenario, options);
  std::vector<std::string> got;
  for (const Finding& f : report.findings)
    if (f.rule.rfind("frame.", 0) == 0) got.push_back(fmt::format("{} {} {}: {}", f.line, to_string(f.severity), f.rule, f.message));
  const std::vector<std::string> expected = {
      "4 warning frame.unknown-enum: params.items[1].kind: \"c\" is not a value of the open enum Kind (one of \"a\", \"b\") "
      "(request do; schema #/$defs/Kind)",
      "4 error frame.schema: params.items[1].mode: \"y\" is not a value of the closed enum Mode (one of \"x\") (request do; "
      "schema #/$defs/Mode)",
      "4 error frame.schema: params.items[2]: missing required member \"kind\" (request do; schema #/$defs/Item)",
      "5 error frame.schema: result.kind: expected string, got integer (result of do sent at line 4; schema #/$defs/Kind)",
      "8 error frame.schema: result: missing required member \"ok\" (result of ask sent at line 7; schema #/requests/ask/result)",
      "10 error frame.error-kind: error -32600 carries data.kind \"nope\"; the errors table gives \"invalidRequest\" or "
      "\"notInitialized\" for it",
      "12 warning frame.unknown-error-code: error code -32099 is not in the schema bundle's errors table",
      "13 warning frame.unknown-method: unknown method later: not in the schema bundle's \"notifications\" table",
  };
  EXPECT_EQ(got, expected);
  EXPECT_EQ(report.bundle, "tiny.json");
  EXPECT_EQ(report.schema_checked, 9u);  // initialize, its result, initialized: no schema; an unknown method
  EXPECT_EQ(report.envelope_only, 4u);
}

TEST(Validator, SdkToleranceMakesUnknownEnumStringsNotes) {
  TempDir dir;
  const std::string transcript =
      line("client", R"({"jsonrpc":"2.0","id":1,"method":"initialize"})") + line("server", R"({"jsonrpc":"2.0","id":1,"result":{}})") +
      line("client", R"({"jsonrpc":"2.0","method":"initialized"})") +
      line("server", R"({"jsonrpc":"2.0","method":"done","params":{"kind":"zz","mode":"q"}})") +
      line("server", R"({"jsonrpc":"2.0","method":"done","params":{"kind":5}})");
  const fs::path scenario = make_scenario(dir.path(), "t", transcript);
  Manifest m = small_manifest("t");
  m.provenance = "sdk-tolerance";
  m.source = {SourceRange{"1-5", "seed 000 handshake", 1, 5}};
  ASSERT_TRUE(write_manifest(scenario / "manifest.json", m));
  ValidateOptions options;
  options.schema = tiny_bundle();
  const ScenarioReport report = validate_scenario(scenario, options);
  std::vector<std::string> got;
  for (const Finding& f : report.findings) got.push_back(fmt::format("{} {} {}", f.line, to_string(f.severity), f.rule));
  EXPECT_EQ(got, (std::vector<std::string>{"4 note frame.unknown-enum", "4 note frame.unknown-enum", "5 error frame.schema"}));
}

}  // namespace
}  // namespace msptk

namespace msptk {
namespace {

// Without a schema bundle the validator checks a notification the text key takes without its
// DOM (validator/transcript_rules.cpp, transcript/text_key.hpp). The same transcript with each
// such frame spelled so that the text key declines it — its first member name written
// "\u006asonrpc", the same JSON — is checked through the general path. The findings must be the
// same (rule, line, severity, message) for every transcript of both corpora, of the golden
// validate cases and of the unit tests' generated session.
TEST(Validator, NotificationsCheckedWithoutADomGiveTheGeneralPathsFindings) {
  std::vector<fs::path> files;
  for (const auto& root : {test::source_dir() / "corpus", test::source_dir() / "tests" / "golden" / "validate",
                           test::shared_transcripts()}) {
    if (!fs::is_directory(root)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root))
      if (e.path().extension() == ".ndjson") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 20u);
  TempDir tmp;
  std::size_t spelled = 0, findings_on_spelled = 0;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::string out;
    std::set<std::size_t> lines_spelled;
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) {
      ++n;
      auto frame = parse_transcript_line(line, file.string(), n);
      const std::string_view prefix = R"({"jsonrpc")";
      if (frame && !frame->exact_bytes && frame->json_text() == frame->raw && line == canonical_line(frame->dir, frame->raw) &&
          frame->raw.starts_with(prefix) && notification_text_key(frame->json_text())) {
        const std::string raw = R"({"\u006asonrpc")" + frame->raw.substr(prefix.size());
        ASSERT_FALSE(notification_text_key(raw)) << file;
        out += canonical_line(frame->dir, raw);
        lines_spelled.insert(n);
        ++spelled;
      } else {
        out += line;
      }
      if (!in.eof()) out += '\n';
    }
    // The copy sits in a copy of the file's folder (its manifest pins the frame limit, names the
    // legs files...), as the original does.
    const fs::path folder = tmp / std::to_string(&file - files.data()) / file.parent_path().filename();
    fs::create_directories(folder.parent_path());
    fs::copy(file.parent_path(), folder, fs::copy_options::recursive);
    const fs::path copy = folder / file.filename();
    test::write_text(copy, out);
    const ScenarioReport fast = validate_scenario(file, ValidateOptions{});
    const ScenarioReport general = validate_scenario(copy, ValidateOptions{});
    ASSERT_EQ(fast.problems.size(), general.problems.size()) << file << ": " << (general.problems.empty() ? std::string() : general.problems[0].render());
    ASSERT_EQ(fast.findings.size(), general.findings.size())
        << file << ": " << (general.findings.empty() ? std::string() : render(general.findings[0]));
    for (std::size_t i = 0; i < fast.findings.size(); ++i) {
      const Finding& a = fast.findings[i];
      const Finding& b = general.findings[i];
      EXPECT_EQ(a.rule, b.rule) << file;
      EXPECT_EQ(a.line, b.line) << file;
      EXPECT_EQ(a.severity, b.severity) << file;
      // (A frame's size is in frame.too-large's message: the spelling made it 5 bytes longer;
      // manifest.normalize-registry names the corpus file of each copy's own folder.)
      if (a.rule != "frame.too-large" && a.rule != "manifest.normalize-registry") {
        EXPECT_EQ(a.message, b.message) << file << " line " << a.line;
      }
      findings_on_spelled += lines_spelled.count(a.line);
    }
  }
  EXPECT_GT(spelled, 100u);
  EXPECT_GT(findings_on_spelled, 0u);  // some notification the fast path took has a finding
}

}  // namespace
}  // namespace msptk
