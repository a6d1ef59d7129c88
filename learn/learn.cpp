#include "msptk/learn/learn.hpp"

#include "msptk/differ/diff.hpp"
#include "msptk/normalizer/canonical.hpp"
#include "msptk/normalizer/corpus_file.hpp"
#include "msptk/normalizer/mask.hpp"
#include "msptk/transcript/manifest.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/scenario.hpp"

#include <fmt/format.h>

#include <map>
#include <ostream>
#include <set>

namespace msptk::learn {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

struct Recording {
  fs::path dir;
  std::string file;  // its transcript, as reports name it
  std::vector<Frame> frames;
  std::vector<json::value> parsed;
};

// What the walk saw at one path.
struct PathFacts {
  std::size_t varying = 0;
  std::string example;          // the first varying place
  std::size_t fixed = 0;        // places where every run had the same value
  std::string fixed_example;    // the first of those
  std::vector<Direction> dirs;  // of each varying place
  std::vector<std::vector<std::string>> values;  // per varying place, one canonical value per run
  bool all_integers = true, all_times = true, all_uuids = true;
};

struct Walk {
  const std::vector<Recording>& runs;
  std::size_t frame = 0;
  FrameRole role;
  const Masker& builtin;
  std::map<std::string, PathFacts>& facts;
  std::vector<std::string>& order;
  std::vector<Obstacle>& obstacles;
  std::string location, pattern;

  std::string where() const {
    return fmt::format("{}:{} {}", runs[0].file, runs[0].frames[frame].line, location.empty() ? "(frame)" : location);
  }
  PathFacts& at(const std::string& path) {
    auto [it, added] = facts.try_emplace(path);
    if (added) order.push_back(path);
    return it->second;
  }

  void node(const std::vector<const json::value*>& vals, std::size_t depth) {
    if (depth > 0 && depth <= builtin.max_depth() &&
        builtin.rule_for(role, location, depth).treatment != Treatment::exact)
      return;  // msptk unifies (or ignores) it whatever is declared
    bool objects = true, arrays = true;
    for (const json::value* v : vals) {
      objects = objects && v->is_object();
      arrays = arrays && v->is_array();
    }
    if (objects) {
      std::vector<std::string> keys;
      std::set<std::string> seen;
      for (const json::value* v : vals)
        for (const auto& m : v->get_object())
          if (seen.insert(std::string(m.key())).second) keys.emplace_back(m.key());
      for (const std::string& key : keys) {
        std::vector<const json::value*> children;
        for (const json::value* v : vals)
          if (const json::value* c = v->get_object().if_contains(key)) children.push_back(c);
        const std::size_t lmark = location.size(), pmark = pattern.size();
        push_member(location, key);
        push_member(pattern, key);
        if (children.size() != vals.size()) {
          obstacles.push_back(Obstacle{runs[0].file, runs[0].frames[frame].line,
                                       fmt::format("{} is present in some runs only: a presence that varies cannot be "
                                                   "declared away",
                                                   location)});
        } else {
          node(children, depth + 1);
        }
        location.resize(lmark);
        pattern.resize(pmark);
      }
      return;
    }
    if (arrays) {
      const std::size_t n = vals[0]->get_array().size();
      for (const json::value* v : vals) {
        if (v->get_array().size() == n) continue;
        obstacles.push_back(Obstacle{runs[0].file, runs[0].frames[frame].line,
                                     fmt::format("{} has {} elements in one run and {} in another: an array of variable "
                                                 "length cannot be declared away",
                                                 location.empty() ? "the frame" : location, n, v->get_array().size())});
        return;
      }
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<const json::value*> children;
        for (const json::value* v : vals) children.push_back(&v->get_array()[i]);
        const std::size_t lmark = location.size(), pmark = pattern.size();
        location += fmt::format("[{}]", i);
        pattern += "[]";
        node(children, depth + 1);
        location.resize(lmark);
        pattern.resize(pmark);
      }
      return;
    }
    std::vector<std::string> canon;
    bool same = true;
    for (const json::value* v : vals) {
      canon.push_back(canonical_json(*v));
      same = same && canon.back() == canon.front();
    }
    PathFacts& f = at(pattern);
    if (same) {
      if (f.fixed++ == 0) f.fixed_example = where();
      return;
    }
    if (f.varying++ == 0) f.example = where();
    f.dirs.push_back(role.dir);
    f.values.push_back(canon);
    for (const json::value* v : vals) {
      f.all_integers = f.all_integers && satisfies(ValueCheck::non_negative_integer, *v);
      f.all_times = f.all_times && satisfies(ValueCheck::rfc3339, *v);
      f.all_uuids = f.all_uuids && satisfies(ValueCheck::uuid, *v);
    }
  }
};

// True when, between run 0 and every other run, the values correspond one to one (per direction,
// as msptk's bijections are kept).
bool one_to_one(const PathFacts& f) {
  const std::size_t runs = f.values.empty() ? 0 : f.values[0].size();
  for (std::size_t k = 1; k < runs; ++k) {
    for (Direction dir : {Direction::client, Direction::server}) {
      std::map<std::string, std::string> forward, backward;
      for (std::size_t p = 0; p < f.values.size(); ++p) {
        if (f.dirs[p] != dir) continue;
        const std::string& a = f.values[p][0];
        const std::string& b = f.values[p][k];
        auto [fi, fnew] = forward.try_emplace(a, b);
        auto [bi, bnew] = backward.try_emplace(b, a);
        if ((!fnew && fi->second != b) || (!bnew && bi->second != a)) return false;
      }
    }
  }
  return true;
}

PathCompare erased(const PathFacts& f) {
  return PathCompare{MaskMode::erase, f.all_uuids ? ValueCheck::uuid : ValueCheck::none};
}

MaskSpec spec_of(const std::vector<Declaration>& declarations) {
  MaskSpec spec;
  for (const Declaration& d : declarations) {
    spec.declared.push_back(*JsonPath::parse(d.path));
    spec.compare.push_back(d.compare);
  }
  return spec;
}

// Diffs every pair under `declarations`; the first divergent result, if any.
std::optional<DiffResult> first_divergent(const std::vector<Recording>& runs, const std::vector<Declaration>& declarations) {
  DiffOptions options;
  options.mask = spec_of(declarations);
  options.warn_stale = false;
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (std::size_t j = i + 1; j < runs.size(); ++j) {
      DiffResult result = diff_frames(runs[i].frames, runs[j].frames, options, runs[i].file, runs[j].file);
      if (result.verdict == Verdict::divergent) return result;
    }
  return std::nullopt;
}

Result<Recording> load(const fs::path& dir) {
  auto scenario = load_scenario(dir);
  if (!scenario) return scenario.error();
  Recording run;
  run.dir = dir;
  run.file = scenario->files.transcript.string();
  auto frames = read_transcript(scenario->files.transcript);
  if (!frames) return frames.error();
  run.frames = std::move(*frames);
  for (const Frame& frame : run.frames) {
    auto value = frame.parse(run.file);
    if (!value) return value.error();
    run.parsed.push_back(std::move(*value));
  }
  return run;
}

const char* const kRemedy =
    "pin the host so that its runs agree there: its id seed and clock (record's --id-seed and --clock-start-ms, "
    "passed as {idSeed}/{clockStartMs} in ARGS and MSP_ID_SEED/MSP_CLOCK_START_MS), and deterministic tools "
    "(canned model and tool answers) for streams whose length varies";

}  // namespace

fs::path common_folder(const std::vector<fs::path>& recordings) {
  std::error_code ec;
  fs::path common;
  for (std::size_t i = 0; i < recordings.size(); ++i) {
    fs::path abs = fs::weakly_canonical(fs::absolute(recordings[i], ec), ec);
    fs::path parent = abs.parent_path();
    if (i == 0) {
      common = parent;
      continue;
    }
    fs::path shared;
    auto a = common.begin(), b = parent.begin();
    for (; a != common.end() && b != parent.end() && *a == *b; ++a, ++b) shared /= *a;
    common = shared;
  }
  return common;
}

Result<LearnResult> learn(const std::vector<fs::path>& recordings) {
  if (recordings.size() < 2)
    return Error::usage("learn needs two or more recordings of the same script (record it several times)");
  std::vector<Recording> runs;
  for (const fs::path& dir : recordings) {
    auto run = load(dir);
    if (!run) return run.error();
    runs.push_back(std::move(*run));
  }
  LearnResult result;
  result.recordings = recordings;
  const fs::path folder = common_folder(recordings);
  if (auto found = find_corpus_file(folder)) result.corpus_file = *found;
  else result.corpus_file = folder / kCorpusFileName;

  // The same frames, in the same order.
  for (std::size_t k = 1; k < runs.size(); ++k) {
    if (runs[k].frames.size() != runs[0].frames.size()) {
      result.obstacles.push_back(Obstacle{runs[k].file, 0,
                                          fmt::format("{} frames, where {} has {}: a stream of variable length cannot "
                                                      "be declared away",
                                                      runs[k].frames.size(), runs[0].file, runs[0].frames.size())});
    }
  }
  if (!result.ok()) return result;
  for (std::size_t i = 0; i < runs[0].frames.size(); ++i) {
    const Envelope first = classify(runs[0].parsed[i]);
    for (std::size_t k = 1; k < runs.size(); ++k) {
      const Envelope other = classify(runs[k].parsed[i]);
      if (runs[k].frames[i].dir != runs[0].frames[i].dir || other.kind != first.kind || other.method != first.method)
        result.obstacles.push_back(Obstacle{runs[k].file, runs[k].frames[i].line,
                                            fmt::format("a {} {} {} where {}:{} has a {} {} {}: the runs took other paths",
                                                        to_string(runs[k].frames[i].dir), to_string(other.kind),
                                                        other.method, runs[0].file, runs[0].frames[i].line,
                                                        to_string(runs[0].frames[i].dir), to_string(first.kind),
                                                        first.method)});
    }
  }
  if (!result.ok()) return result;

  // Every value that differs between the runs, by path.
  const Masker builtin{MaskSpec{}};
  std::map<std::string, PathFacts> facts;
  std::vector<std::string> order;
  for (std::size_t i = 0; i < runs[0].frames.size(); ++i) {
    Walk walk{runs, i, FrameRole::of(runs[0].frames[i].dir, classify(runs[0].parsed[i])), builtin, facts, order,
              result.obstacles, {}, {}};
    std::vector<const json::value*> vals;
    for (const Recording& run : runs) vals.push_back(&run.parsed[i]);
    walk.node(vals, 0);
  }
  std::vector<Declaration> declarations;
  for (const std::string& path : order) {
    const PathFacts& f = facts.at(path);
    if (f.varying == 0) continue;
    if (f.fixed > 0) {
      result.obstacles.push_back(Obstacle{
          runs[0].file, 0,
          fmt::format("{} differs between the runs ({}) but is the same in every run elsewhere ({}): declaring it would "
                      "hide that data",
                      path, f.example, f.fixed_example)});
      continue;
    }
    Declaration d{path, {}, f.varying, f.example};
    if (f.all_integers) d.compare = PathCompare{MaskMode::erase, ValueCheck::non_negative_integer};
    else if (f.all_times) d.compare = PathCompare{MaskMode::erase, ValueCheck::rfc3339};
    else if (one_to_one(f)) d.compare = PathCompare{};
    else d.compare = erased(f);
    declarations.push_back(std::move(d));
  }
  if (!result.ok()) return result;

  // The proof. A unified path a diff shows is not one to one is erased instead.
  for (std::size_t attempt = 0; attempt <= declarations.size(); ++attempt) {
    auto divergent = first_divergent(runs, declarations);
    if (!divergent) break;
    bool changed = false;
    for (const DiffEntry& entry : divergent->entries) {
      for (const PathDivergence& div : entry.divergences) {
        for (Declaration& d : declarations) {
          if (d.compare.mode != MaskMode::unify || !JsonPath::parse(d.path)->matches_location(div.path)) continue;
          d.compare = erased(facts.at(d.path));
          changed = true;
        }
      }
    }
    if (changed) continue;
    for (const DiffEntry& entry : divergent->entries)
      for (const PathDivergence& div : entry.divergences)
        result.obstacles.push_back(Obstacle{divergent->actual_file, entry.actual_line,
                                            fmt::format("{} still differs with every declaration applied: {}", div.path,
                                                        div.note.empty() ? "the values differ" : div.note)});
    if (result.obstacles.empty())
      result.obstacles.push_back(Obstacle{divergent->actual_file, 0, "the recordings still diverge with every declaration applied"});
    return result;
  }
  // Minimal: a declaration the proof holds without is dropped, until each one is needed.
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (std::size_t i = 0; i < declarations.size(); ++i) {
      std::vector<Declaration> without = declarations;
      without.erase(without.begin() + static_cast<std::ptrdiff_t>(i));
      if (first_divergent(runs, without)) continue;
      declarations = std::move(without);
      dropped = true;
      break;
    }
  }
  result.declarations = std::move(declarations);
  result.pairs = runs.size() * (runs.size() - 1) / 2;
  return result;
}

Result<void> write_declarations(const LearnResult& result) {
  if (!result.ok()) return Error::usage("learn found what cannot be declared away: nothing is written");
  std::vector<std::pair<std::string, PathCompare>> declared;
  std::vector<std::string> paths;
  for (const Declaration& d : result.declarations) {
    declared.emplace_back(d.path, d.compare);
    paths.push_back(d.path);
  }
  if (auto written = write_corpus_file(result.corpus_file, declared); !written) return written.error();
  for (const fs::path& dir : result.recordings) {
    auto scenario = load_scenario(dir);
    if (!scenario) return scenario.error();
    const fs::path file = scenario->files.manifest ? *scenario->files.manifest : dir / "manifest.json";
    auto manifest = read_manifest(file);
    if (!manifest) return manifest.error();
    manifest->manifest.normalize = paths;
    if (auto written = write_manifest(file, manifest->manifest); !written) return written.error();
  }
  return {};
}

void render_text(std::ostream& out, const LearnResult& result, bool written) {
  if (!result.ok()) {
    out << fmt::format("cannot be declared away ({} of {} recordings):\n", result.obstacles.size(),
                       result.recordings.size());
    for (const Obstacle& o : result.obstacles) {
      if (o.line) out << fmt::format("  {}:{}: {}\n", o.file, o.line, o.message);
      else out << fmt::format("  {}: {}\n", o.file, o.message);
    }
    out << fmt::format("remedy: {}\nnothing was written\n", kRemedy);
    return;
  }
  std::size_t width = 4;
  for (const Declaration& d : result.declarations) width = std::max(width, d.path.size());
  out << fmt::format("{} declarations from {} recordings; with them every pair ({}) diffs equivalent, and each is "
                     "needed:\n",
                     result.declarations.size(), result.recordings.size(), result.pairs);
  for (const Declaration& d : result.declarations)
    out << fmt::format("  {:<{}}  {:<20}  {} place{}, e.g. {}\n", d.path, width, to_string(d.compare), d.places,
                       d.places == 1 ? "" : "s", d.example);
  if (written)
    out << fmt::format("written: {} and the normalize list of {} manifests\n", display_path(result.corpus_file),
                       result.recordings.size());
  else
    out << fmt::format("not written (--write writes them to {} and each recording's manifest)\n",
                       display_path(result.corpus_file));
}

}  // namespace msptk::learn
