// The differ against every scenario of the public corpus: each transcript diffed with itself,
// and variants built from the parsed frames (written to a temp copy) that must come out
// equivalent or divergent at the right path and line.
#include "msptk/differ/diff.hpp"
#include "msptk/differ/signature.hpp"
#include "msptk/normalizer/registry.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/scenario.hpp"
#include "msptk/transcript/writer.hpp"
#include "spool_check.hpp"
#include "test_support.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <functional>

namespace msptk {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

struct Loaded {
  std::string name;
  fs::path transcript;
  std::vector<Frame> frames;
  std::vector<std::string> normalize;
};

std::vector<Loaded> corpus() {
  std::vector<Loaded> out;
  for (const fs::path& dir : test::corpus_scenarios()) {
    auto scenario = load_scenario(dir);
    EXPECT_TRUE(scenario) << dir;
    auto frames = read_transcript(scenario->files.transcript);
    EXPECT_TRUE(frames) << dir;
    out.push_back(Loaded{dir.filename().string(), scenario->files.transcript, *frames, scenario->manifest.normalize});
  }
  return out;
}

MaskSpec spec_for(const Loaded& s, MaskMode mode = MaskMode::unify) {
  auto spec = make_mask_spec(Registry::builtin(), s.normalize, "manifest.json", 1, {}, mode);
  EXPECT_TRUE(spec);
  return *spec;
}

json::value parse(const Frame& f) { return json::parse(f.json_text()); }

Frame with(const Frame& f, const json::value& v) {
  Frame g = f;
  g.raw = json::serialize(v);
  if (f.json_text().size() != f.raw.size()) g.raw += '\r';
  g.exact_bytes.reset();
  return g;
}

json::value reversed(const json::value& v) {
  if (const auto* obj = v.if_object()) {
    json::object out;
    for (auto it = obj->end(); it != obj->begin();) {
      --it;
      out.emplace(it->key(), reversed(it->value()));
    }
    return out;
  }
  if (const auto* arr = v.if_array()) {
    json::array out;
    for (const auto& e : *arr) out.push_back(reversed(e));
    return out;
  }
  return v;
}

json::value remint(const json::value& v) {
  if (v.is_int64()) return v.get_int64() + 1000;
  if (v.is_string()) return json::string("re-" + std::string(v.get_string()));
  return json::string("re-" + json::serialize(v));
}

// Writes `frames` as a transcript copy and diffs the original against it.
DiffResult diff_copy(const Loaded& s, const std::vector<Frame>& frames, MaskMode mode = MaskMode::unify) {
  test::TempDir tmp;
  auto writer = TranscriptWriter::create(tmp / "transcript.ndjson");
  EXPECT_TRUE(writer);
  for (const Frame& f : frames) EXPECT_TRUE(writer->append(f));
  auto result = diff_transcripts(s.transcript, tmp / "transcript.ndjson", DiffOptions{spec_for(s, mode), Side::both});
  EXPECT_TRUE(result) << result.error().render();
  // Every variant's report comes out the same through a SpooledReport (what `msptk diff` uses).
  test::expect_spooled_same(
      [&](EntrySink* sink) -> Result<DiffReport> {
        DiffOptions options{spec_for(s, mode), Side::both};
        options.sink = sink;
        auto r = diff_transcripts(s.transcript, tmp / "transcript.ndjson", options);
        if (!r) return r.error();
        DiffReport report;
        report.comparisons.push_back(std::move(*r));
        return report;
      },
      s.name + " variant");
  return *result;
}

std::string describe(const DiffResult& r) {
  std::string out = std::string(to_string(r.verdict)) + "\n";
  for (const DiffEntry& e : r.entries) {
    out += std::string(to_string(e.kind)) + " " + e.signature + " " + std::to_string(e.expected_line) + "/" +
           std::to_string(e.actual_line) + "\n";
    for (const PathDivergence& d : e.divergences)
      out += "  " + d.path + ": " + d.expected.value_or("-") + " -> " + d.actual.value_or("-") + " " + d.note + "\n";
  }
  return out;
}

void expect_equivalent(const DiffResult& r, const std::string& name) {
  EXPECT_EQ(r.verdict, Verdict::equivalent) << name << "\n" << describe(r);
  EXPECT_EQ(r.counts.divergent + r.counts.missing + r.counts.extra + r.counts.moved, 0u) << name;
}

// Exactly one divergent frame, at these lines, with a divergence at `path`.
void expect_divergent_at(const DiffResult& r, std::size_t expected_line, std::size_t actual_line,
                         const std::string& path, bool with_note, const std::string& name) {
  EXPECT_EQ(r.verdict, Verdict::divergent) << name;
  EXPECT_EQ(r.counts.divergent, 1u) << name << "\n" << describe(r);
  EXPECT_EQ(r.counts.missing + r.counts.extra + r.counts.moved, 0u) << name << "\n" << describe(r);
  for (const DiffEntry& e : r.entries) {
    if (e.kind != EntryKind::divergent) continue;
    EXPECT_EQ(e.expected_line, expected_line) << name;
    EXPECT_EQ(e.actual_line, actual_line) << name;
    bool found = false;
    for (const PathDivergence& d : e.divergences)
      if (d.path == path) found = !with_note || !d.note.empty();
    EXPECT_TRUE(found) << name << ": no divergence at " << path << "\n" << describe(r);
  }
}

std::vector<Envelope> envelopes(const std::vector<json::value>& values) {
  std::vector<Envelope> out;
  for (const auto& v : values) out.push_back(classify(v));
  return out;
}

std::vector<json::value> parse_all(const std::vector<Frame>& frames) {
  std::vector<json::value> out;
  for (const Frame& f : frames) out.push_back(parse(f));
  return out;
}

std::vector<Frame> renumbered(std::vector<Frame> frames) {
  for (std::size_t i = 0; i < frames.size(); ++i) frames[i].line = i + 1;
  return frames;
}

// Changes the first leaf the mask compares exactly (skipping jsonrpc, method and id at the root).
std::optional<std::string> change_exact_leaf(const Masker& masker, const FrameRole& role, json::value& v,
                                             const std::string& location = {}, std::size_t depth = 0) {
  auto try_child = [&](json::value& child, const std::string& loc) -> std::optional<std::string> {
    if (depth == 0 && (loc == "jsonrpc" || loc == "method" || loc == "id")) return std::nullopt;
    if (masker.rule_for(role, loc, depth + 1).treatment != Treatment::exact) return std::nullopt;
    return change_exact_leaf(masker, role, child, loc, depth + 1);
  };
  if (auto* obj = v.if_object()) {
    for (auto& m : *obj)
      if (auto r = try_child(m.value(), location.empty() ? std::string(m.key()) : location + "." + std::string(m.key())))
        return r;
    return std::nullopt;
  }
  if (auto* arr = v.if_array()) {
    for (std::size_t i = 0; i < arr->size(); ++i)
      if (auto r = try_child((*arr)[i], location + "[" + std::to_string(i) + "]")) return r;
    return std::nullopt;
  }
  if (depth == 0) return std::nullopt;
  if (v.is_bool()) {
    v = !v.get_bool();
  } else if (v.is_int64()) {
    v = v.get_int64() + 1;
  } else {
    v = remint(v);
  }
  return location;
}

TEST(DifferCorpus, EveryTranscriptIsIdenticalToItself) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  for (const fs::path& file : test::corpus_ndjson_files()) {
    auto r = diff_transcripts(file, file, DiffOptions{});
    ASSERT_TRUE(r) << r.error().render();
    EXPECT_EQ(r->verdict, Verdict::identical) << file;
    EXPECT_TRUE(r->byte_identical) << file;
    EXPECT_GT(r->counts.identical, 0u) << file;
  }
}

TEST(DifferCorpus, ReMintedClientIdsAndIdentityAndReorderedClientMembersAreEquivalent) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  for (const Loaded& s : corpus()) {
    std::vector<json::value> values = parse_all(s.frames);
    std::vector<Frame> out;
    Correlator correlator;
    for (std::size_t i = 0; i < s.frames.size(); ++i) {
      const Frame& f = s.frames[i];
      json::value v = values[i];
      const Envelope env = classify(values[i]);
      auto outcome = correlator.observe(f.dir, env, f.line);
      json::object& obj = v.as_object();
      if (f.dir == Direction::client && env.kind == FrameKind::request) {
        obj["id"] = remint(obj["id"]);
        if (auto* params = obj.if_contains("params"); params && params->is_object()) {
          if (auto* command = params->as_object().if_contains("commandId")) *command = remint(*command);
          if (auto* info = params->as_object().if_contains("clientInfo"); info && env.method == "initialize") {
            info->as_object()["name"] = "another-client";
            info->as_object()["version"] = "9.9.9";
            info->as_object()["title"] = "Another Client";
          }
        }
      }
      if (f.dir == Direction::server && env.kind == FrameKind::response && outcome.answered) {
        obj["id"] = remint(obj["id"]);
      }
      out.push_back(with(f, f.dir == Direction::client ? reversed(v) : v));
    }
    expect_equivalent(diff_copy(s, out), s.name);
  }
}

TEST(DifferCorpus, ReorderedServerMembersAreEquivalent) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  for (const Loaded& s : corpus()) {
    std::vector<Frame> out;
    for (const Frame& f : s.frames) out.push_back(f.dir == Direction::server ? with(f, reversed(parse(f))) : f);
    expect_equivalent(diff_copy(s, out), s.name);
  }
}

TEST(DifferCorpus, DeclaredValuesChangedConsistentlyAreEquivalent) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  std::size_t changed_scenarios = 0;
  for (const Loaded& s : corpus()) {
    const MaskSpec spec = spec_for(s);
    std::vector<Frame> out;
    bool changed = false;
    for (const Frame& f : s.frames) {
      json::value v = parse(f);
      for (const JsonPath& path : spec.declared)
        path.for_each_match(v, [&](json::value& value, const std::string&) {
          value = remint(value);
          changed = true;
        });
      out.push_back(with(f, v));
    }
    const DiffResult unified = diff_copy(s, out);
    const DiffResult erased = diff_copy(s, out, MaskMode::erase);
    if (changed) {
      ++changed_scenarios;
      expect_equivalent(unified, s.name);
      expect_equivalent(erased, s.name + " (erase)");
      EXPECT_GT(unified.masks.front().differed, 0u) << s.name;
    } else {
      EXPECT_NE(unified.verdict, Verdict::divergent) << s.name << "\n" << describe(unified);
    }
  }
  EXPECT_GE(changed_scenarios, 30u);
}

// Changes the first value of a `dir` frame in `out` that the mask compares exactly; returns its
// path and sets `line`, or nullopt when no such value exists.
std::optional<std::string> change_first_exact_value(const Loaded& s, Direction dir, std::vector<Frame>& out,
                                                    std::size_t& line) {
  const Masker masker(spec_for(s));
  for (Frame& f : out) {
    if (f.dir != dir) continue;
    json::value v = parse(f);
    std::optional<std::string> path = change_exact_leaf(masker, FrameRole::of(f.dir, classify(v)), v);
    if (!path) continue;
    f = with(f, v);
    line = f.line;
    return path;
  }
  return std::nullopt;
}

TEST(DifferCorpus, ChangedServerValueIsDivergentAtItsPathAndLine) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  for (const Loaded& s : corpus()) {
    std::vector<Frame> out = s.frames;
    std::size_t line = 0;
    const std::optional<std::string> path = change_first_exact_value(s, Direction::server, out, line);
    ASSERT_TRUE(path) << s.name;
    expect_divergent_at(diff_copy(s, out), line, line, *path, false, s.name);
  }
}

TEST(DifferCorpus, ChangedClientValueAtUndeclaredPathIsDivergent) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  std::size_t tested = 0;
  for (const Loaded& s : corpus()) {
    std::vector<Frame> out = s.frames;
    std::size_t line = 0;
    const std::optional<std::string> path = change_first_exact_value(s, Direction::client, out, line);
    if (!path) continue;  // only initialize/initialized: nothing the client sends is compared exactly
    ++tested;
    expect_divergent_at(diff_copy(s, out), line, line, *path, false, s.name);
  }
  EXPECT_GE(tested, 30u);
}

TEST(DifferCorpus, DroppedFrameIsMissingNotACascade) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  for (const Loaded& s : corpus()) {
    const auto env = envelopes(parse_all(s.frames));
    std::size_t k = s.frames.size();
    for (std::size_t i = 1; i < s.frames.size() && k == s.frames.size(); ++i)
      if (env[i].kind == FrameKind::notification) k = i;
    if (k == s.frames.size()) k = s.frames.size() - 1;
    std::vector<Frame> out = s.frames;
    out.erase(out.begin() + static_cast<long>(k));
    const DiffResult r = diff_copy(s, renumbered(out));
    EXPECT_EQ(r.verdict, Verdict::divergent) << s.name;
    EXPECT_EQ(r.counts.missing, 1u) << s.name << "\n" << describe(r);
    EXPECT_EQ(r.counts.divergent + r.counts.extra + r.counts.moved, 0u) << s.name << "\n" << describe(r);
    ASSERT_EQ(r.entries.size(), 1u) << s.name;
    EXPECT_EQ(r.entries[0].expected_line, k + 1) << s.name;
    EXPECT_EQ(r.entries[0].actual_line, 0u) << s.name;
  }
}

TEST(DifferCorpus, ExtraFrameIsExtraNotACascade) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  for (const Loaded& s : corpus()) {
    std::vector<Frame> out = s.frames;
    const std::size_t k = out.size() / 2;
    Frame extra;
    extra.dir = Direction::server;
    extra.raw = R"({"jsonrpc":"2.0","method":"test/extra","params":{"n":1}})";
    out.insert(out.begin() + static_cast<long>(k), extra);
    const DiffResult r = diff_copy(s, renumbered(out));
    EXPECT_EQ(r.counts.extra, 1u) << s.name << "\n" << describe(r);
    EXPECT_EQ(r.counts.divergent + r.counts.missing + r.counts.moved, 0u) << s.name << "\n" << describe(r);
    ASSERT_EQ(r.entries.size(), 1u) << s.name;
    EXPECT_EQ(r.entries[0].actual_line, k + 1) << s.name;
    EXPECT_EQ(r.entries[0].signature, "server notification test/extra");
  }
}

TEST(DifferCorpus, SwappedFramesAreMoved) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  for (const Loaded& s : corpus()) {
    const auto env = envelopes(parse_all(s.frames));
    std::size_t k = s.frames.size();
    for (std::size_t i = 0; i + 1 < s.frames.size() && k == s.frames.size(); ++i) {
      const bool one_notification =
          env[i].kind == FrameKind::notification || env[i + 1].kind == FrameKind::notification;
      const bool other_method = env[i].method != env[i + 1].method || s.frames[i].dir != s.frames[i + 1].dir;
      if (one_notification && other_method && s.frames[i].raw != s.frames[i + 1].raw) k = i;
    }
    ASSERT_LT(k, s.frames.size()) << s.name;
    std::vector<Frame> out = s.frames;
    std::swap(out[k], out[k + 1]);
    const DiffResult r = diff_copy(s, renumbered(out));
    EXPECT_EQ(r.verdict, Verdict::divergent) << s.name;
    EXPECT_EQ(r.counts.moved, 1u) << s.name << "\n" << describe(r);
    EXPECT_EQ(r.counts.divergent + r.counts.missing + r.counts.extra, 0u) << s.name << "\n" << describe(r);
    ASSERT_EQ(r.entries.size(), 1u) << s.name;
    const std::pair<std::size_t, std::size_t> lines{std::min(r.entries[0].expected_line, r.entries[0].actual_line),
                                                    std::max(r.entries[0].expected_line, r.entries[0].actual_line)};
    EXPECT_EQ(lines, std::make_pair(k + 1, k + 2)) << s.name;
  }
}

TEST(DifferCorpus, ClientIdReusedForTwoRequestsIsDivergent) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  std::size_t tested = 0;
  for (const Loaded& s : corpus()) {
    const auto values = parse_all(s.frames);
    const auto env = envelopes(values);
    std::vector<std::size_t> requests;
    for (std::size_t i = 0; i < s.frames.size(); ++i)
      if (s.frames[i].dir == Direction::client && env[i].kind == FrameKind::request) requests.push_back(i);
    if (requests.size() < 2) continue;
    ++tested;
    std::vector<Frame> out = s.frames;
    json::value second = values[requests[1]];
    second.as_object()["id"] = values[requests[0]].at("id");
    out[requests[1]] = with(out[requests[1]], second);
    const std::size_t line = requests[1] + 1;
    expect_divergent_at(diff_copy(s, out), line, line, "id", true, s.name);
  }
  EXPECT_GE(tested, 30u);
}

TEST(DifferCorpus, ResponseToTheWrongServerRequestIsDivergent) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  std::size_t tested = 0;
  for (const Loaded& s : corpus()) {
    const auto values = parse_all(s.frames);
    const auto env = envelopes(values);
    for (std::size_t i = 0; i < s.frames.size(); ++i) {
      if (s.frames[i].dir != Direction::client || env[i].kind != FrameKind::response) continue;
      ++tested;
      std::vector<Frame> out = s.frames;
      json::value answer = values[i];
      answer.as_object()["id"] = remint(answer.at("id"));
      out[i] = with(out[i], answer);
      const bool declared = spec_for(s).declares("id");
      expect_divergent_at(diff_copy(s, out), i + 1, i + 1, "id", declared, s.name);
      break;
    }
  }
  EXPECT_GE(tested, 3u);
}

TEST(DifferCorpus, InconsistentValueAtDeclaredPathIsDivergent) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  std::size_t tested = 0;
  for (const Loaded& s : corpus()) {
    const MaskSpec spec = spec_for(s);
    struct Place {
      std::size_t frame;
      std::string location;
      json::value value;
    };
    std::optional<std::pair<Place, Place>> pick;  // (earlier, later) in one direction and path
    for (const JsonPath& path : spec.declared) {
      if (path.text() == "id" || pick) continue;
      for (Direction dir : {Direction::client, Direction::server}) {
        std::vector<Place> places;
        for (std::size_t i = 0; i < s.frames.size(); ++i) {
          if (s.frames[i].dir != dir) continue;
          path.for_each_match(parse(s.frames[i]), [&](const json::value& v, const std::string& loc) {
            places.push_back(Place{i, loc, v});
          });
        }
        if (places.size() >= 2 && !pick) pick = std::make_pair(places[0], places[1]);
      }
    }
    if (!pick) continue;
    ++tested;
    auto& [first, second] = *pick;
    // Same expected value: split it into two actual ones; different: collapse them into one.
    const json::value replacement = first.value == second.value ? remint(second.value) : first.value;
    std::vector<Frame> out = s.frames;
    json::value v = parse(out[second.frame]);
    JsonPath::parse(second.location)->for_each_match(v, [&](json::value& target, const std::string&) {
      target = replacement;
    });
    out[second.frame] = with(out[second.frame], v);
    const std::size_t line = second.frame + 1;
    expect_divergent_at(diff_copy(s, out), line, line, second.location, true, s.name);
    expect_equivalent(diff_copy(s, out, MaskMode::erase), s.name + " (erase)");
  }
  EXPECT_GE(tested, 20u);
}

// Unrelated scenarios (each against the next two: missing, extra and divergent frames, legs files
// compared or unpaired), and the repository's corpus/ the same way: a SpooledReport writes what
// render_text / render_json write.
TEST(DifferCorpus, SpooledReportsOfUnrelatedScenariosAreTheRenderedReports) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  for (const fs::path& root : {test::shared_transcripts(), test::source_dir() / "corpus"}) {
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(root))
      if (e.is_directory()) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    ASSERT_GE(dirs.size(), 3u) << root;
    for (std::size_t i = 0; i < dirs.size(); ++i) {
      for (std::size_t step : {std::size_t(0), std::size_t(1), std::size_t(2)}) {
        const fs::path& expected = dirs[i];
        const fs::path& actual = dirs[(i + step) % dirs.size()];
        test::expect_spooled_same(
            [&](EntrySink* sink) {
              PathDiffOptions options;
              options.sink = sink;
              return diff_paths(expected, actual, options);
            },
            expected.filename().string() + " vs " + actual.filename().string());
        test::expect_spooled_same(
            [&](EntrySink* sink) {
              PathDiffOptions options;
              options.sink = sink;
              return diff_paths(expected / "transcript.ndjson", actual / "transcript.ndjson", options);
            },
            expected.filename().string() + " vs " + actual.filename().string() + " (files)");
      }
    }
  }
}

TEST(DifferCorpus, EveryScenarioThroughTheCommandLineExitsZeroAgainstItself) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  for (const fs::path& dir : test::corpus_scenarios()) {
    const std::string cmd = std::string(MSPTK_BINARY) + " diff '" + dir.string() + "' '" + dir.string() + "' >/dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << dir;
  }
}

}  // namespace
}  // namespace msptk
