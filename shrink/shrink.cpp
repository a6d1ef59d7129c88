// msptk shrink: the scenario folder of each candidate, the real runners, the reduction
// (shrink.hpp).
#include "msptk/shrink/shrink.hpp"

#include "msptk/check/host_command.hpp"
#include "msptk/playback/replay.hpp"
#include "msptk/normalizer/corpus_file.hpp"
#include "msptk/playback/serve_fixture.hpp"
#include "msptk/process/host_process.hpp"
#include "msptk/shrink/reduce.hpp"
#include "msptk/shrink/segment.hpp"
#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/manifest.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/scenario.hpp"
#include "msptk/transcript/writer.hpp"
#include "msptk/validator/validator.hpp"

#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <map>
#include <ostream>
#include <poll.h>
#include <unistd.h>

namespace msptk::shrink {

namespace fs = std::filesystem;
namespace json = boost::json;

std::string FailureSignature::describe() const {
  std::string text = kind;
  if (!path.empty()) text += " at " + path;
  if (!method.empty()) text += " in " + method;
  return text;
}

std::string line_ranges(const std::vector<std::size_t>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size();) {
    std::size_t j = i;
    while (j + 1 < lines.size() && lines[j + 1] == lines[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", lines[i]) : fmt::format("{}-{}", lines[i], lines[j]);
    i = j + 1;
  }
  return out;
}

namespace {

// The 1-based lines a manifest source range names ("3", "3-5", "1,3-4"); empty when unparsable.
std::vector<std::size_t> lines_of(std::string_view text) {
  std::vector<std::size_t> out;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    const std::size_t dash = part.find('-');
    std::size_t first = 0, last = 0;
    try {
      first = std::stoul(std::string(part.substr(0, dash)));
      last = dash == std::string_view::npos ? first : std::stoul(std::string(part.substr(dash + 1)));
    } catch (...) {
      return {};
    }
    for (std::size_t l = first; l <= last && l - first < 1000000; ++l) out.push_back(l);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

// The source ranges mapped onto the kept lines (`kept`: the original 0-based indexes, in
// order); a range none of whose lines is kept is dropped.
std::vector<SourceRange> remap_source(const std::vector<SourceRange>& source, const std::vector<std::size_t>& kept) {
  std::map<std::size_t, std::size_t> new_line;  // old 1-based -> new 1-based
  for (std::size_t i = 0; i < kept.size(); ++i) new_line[kept[i] + 1] = i + 1;
  std::vector<SourceRange> out;
  for (const SourceRange& range : source) {
    std::vector<std::size_t> lines;
    for (std::size_t old : lines_of(range.lines))
      if (auto it = new_line.find(old); it != new_line.end()) lines.push_back(it->second);
    if (lines.empty()) continue;
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    SourceRange r = range;
    r.lines = line_ranges(lines);
    r.first = lines.front();
    r.last = lines.back();
    out.push_back(std::move(r));
  }
  return out;
}

// Writes a scenario folder `dir` (created if needed; named after its folder) with the frames
// at `kept` of `frames`.
Result<void> write_scenario(const fs::path& dir, const Manifest& base, const std::vector<Frame>& frames,
                            const std::vector<std::size_t>& kept, const std::optional<json::object>& shrunk_from) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error::unreadable(dir.string(), fmt::format("cannot create the folder: {}", ec.message()));
  Manifest m = base;
  m.scenario = dir.filename().string();
  m.source = remap_source(base.source, kept);
  if (shrunk_from) m.extra["shrunkFrom"] = *shrunk_from;
  if (auto written = write_manifest(dir / "manifest.json", m); !written) return written.error();
  auto writer = TranscriptWriter::create(dir / "transcript.ndjson");
  if (!writer) return writer.error();
  for (std::size_t i : kept) writer->stage(frames[i].dir, frames[i].wire_bytes());
  return writer->flush();
}

class Shrinker final : public Oracle {
 public:
  Shrinker(const ShrinkOptions& options, CandidateRunner& runner, const Manifest& manifest,
           const std::vector<Frame>& frames, const Segmentation& seg, fs::path work)
      : options_(options), runner_(runner), manifest_(manifest), frames_(frames), seg_(seg), work_(std::move(work)) {}

  // Runs the candidate of `units`: its failure, nullopt when it passed or does not validate.
  Result<std::optional<FailureSignature>> run(const std::vector<std::size_t>& units) {
    const fs::path dir = work_ / options_.out.filename();
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (auto written = write_scenario(dir, manifest_, frames_, candidate_indexes(seg_, units), std::nullopt); !written)
      return written.error();
    ValidateOptions validate;
    validate.registry = options_.registry;
    if (!validate_scenario(dir, validate).ok()) {
      ++invalid_;
      return std::optional<FailureSignature>();
    }
    ++runs_;
    return runner_.run(dir);
  }

  Result<bool> fails_same_way(const std::vector<std::size_t>& units) override {
    auto got = run(units);
    if (!got) return got.error();
    return got->has_value() && **got == failure_;
  }

  void expect(FailureSignature failure) { failure_ = std::move(failure); }
  std::size_t runs() const { return runs_; }
  std::size_t invalid() const { return invalid_; }

 private:
  const ShrinkOptions& options_;
  CandidateRunner& runner_;
  const Manifest& manifest_;
  const std::vector<Frame>& frames_;
  const Segmentation& seg_;
  fs::path work_;
  FailureSignature failure_;
  std::size_t runs_ = 0, invalid_ = 0;
};

struct WorkDir {
  fs::path path;
  WorkDir() {
    std::string tmpl = (fs::temp_directory_path() / "msptk-shrink-XXXXXX").string();
    if (::mkdtemp(tmpl.data())) path = tmpl;
  }
  ~WorkDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

// ---- the real runners ----

std::string method_of(const std::string& frame) {
  auto v = parse_json(frame);
  if (!v || !v->is_object()) return {};
  const Envelope env = classify(*v);
  return env.method;
}

class HostRunner final : public CandidateRunner {
 public:
  explicit HostRunner(const ShrinkOptions& options) : options_(options) {}
  Result<std::optional<FailureSignature>> run(const fs::path& scenario) override {
    ReplayOptions replay;
    replay.scenario = scenario;
    replay.host_argv = check::expand_scenario(options_.command, scenario);
    replay.timeout_ms = options_.timeout_ms;
    replay.close_timeout_ms = std::min(options_.timeout_ms, 2000);
    replay.registry = options_.registry;
    ReplayEnv env = ReplayEnv::system();
    env.handle_signals = false;
    auto result = replay_scenario(replay, env);
    if (!result) return result.error();
    if (result->spawn_failure) return *result->spawn_failure;
    if (result->passed()) return std::optional<FailureSignature>();
    FailureSignature s;
    for (const DiffEntry& e : result->report.entries) {
      if (e.kind == EntryKind::equivalent || e.kind == EntryKind::identical) continue;
      s.kind = std::string(to_string(e.kind));
      if (!e.divergences.empty()) s.path = e.divergences.front().path;
      s.method = e.signature;
      break;
    }
    if (result->exit_code == 3) s.kind = "hostDied";
    else if (s.kind.empty()) s.kind = "timeout";
    return std::optional<FailureSignature>(s);
  }

 private:
  const ShrinkOptions& options_;
};

class ClientRunner final : public CandidateRunner {
 public:
  explicit ClientRunner(const ShrinkOptions& options) : options_(options) {}
  Result<std::optional<FailureSignature>> run(const fs::path& scenario) override {
    const fs::path report = scenario.parent_path() / "fixture-report.json";
    std::error_code ec;
    fs::remove(report, ec);
    process::SpawnSpec spec;
    spec.argv = check::expand_scenario(options_.command, scenario);
    spec.env.emplace_back("MSPTK_FIXTURE_REPORT", report.string());
    auto child = process::spawn_host(spec);
    if (!child) return child.error();
    process::HostProcess& client = **child;
    client.close_stdin();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.timeout_ms);
    bool out_open = client.stdout_fd() >= 0, err_open = client.stderr_fd() >= 0, timed_out = false;
    char buffer[65536];
    std::optional<process::ExitStatus> exit;
    while (!exit) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        timed_out = true;
        (void)client.signal(SIGKILL);
        exit = client.wait();
        break;
      }
      pollfd fds[2] = {{out_open ? client.stdout_fd() : -1, POLLIN, 0}, {err_open ? client.stderr_fd() : -1, POLLIN, 0}};
      (void)::poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 50)));
      for (int k = 0; k < 2; ++k) {
        if (fds[k].fd < 0 || !fds[k].revents) continue;
        const ssize_t n = ::read(fds[k].fd, buffer, sizeof buffer);
        if (n <= 0) (k == 0 ? out_open : err_open) = false;
      }
      exit = client.try_wait();
    }
    FailureSignature s;
    if (timed_out) {
      s.kind = "timeout";
      return std::optional<FailureSignature>(s);
    }
    if (auto text = read_file(report)) {
      auto v = parse_json(*text);
      const json::object* o = v && v->is_object() ? &v->as_object() : nullptr;
      const json::value* kind = o ? o->if_contains("kind") : nullptr;
      if (kind && *kind == "serveFixtureFailure") {
        if (const json::value* p = o->if_contains("problem"); p && p->is_string()) s.kind = std::string(p->as_string());
        if (const json::value* d = o->if_contains("divergences"); d && d->is_array() && !d->as_array().empty())
          if (const json::value* path = d->as_array()[0].as_object().if_contains("path"); path && path->is_string())
            s.path = std::string(path->as_string());
        if (const json::value* e = o->if_contains("expectedFrame"); e && e->is_string())
          s.method = method_of(std::string(e->as_string()));
        return std::optional<FailureSignature>(s);
      }
    }
    if (exit->shell_code() != 0) {
      s.kind = fmt::format("clientExit {}", exit->shell_code());
      return std::optional<FailureSignature>(s);
    }
    return std::optional<FailureSignature>();
  }

 private:
  const ShrinkOptions& options_;
};

}  // namespace

std::unique_ptr<CandidateRunner> make_runner(const ShrinkOptions& options) {
  if (options.peer == PeerKind::host) return std::make_unique<HostRunner>(options);
  return std::make_unique<ClientRunner>(options);
}

Result<ShrinkResult> shrink_scenario(const ShrinkOptions& options) {
  auto runner = make_runner(options);
  return shrink_scenario(options, *runner);
}

Result<ShrinkResult> shrink_scenario(const ShrinkOptions& options, CandidateRunner& runner) {
  if (options.command.empty()) return Error::usage("shrink needs the peer: --host 'CMD' or --client 'CMD'");
  if (options.max_runs == 0) return Error::usage("--max-runs must be at least 1 (the first run checks the failure)");
  if (options.timeout_ms <= 0) return Error::usage(fmt::format("--timeout-ms must be positive, got {}", options.timeout_ms));
  if (options.out.empty() || options.out.filename().empty())
    return Error::usage("shrink needs --out DIR, a folder to create (its name is the shrunk scenario's id)");
  std::error_code ec;
  if (fs::exists(options.out, ec) && !(fs::is_directory(options.out, ec) && fs::is_empty(options.out, ec)))
    return Error::usage(fmt::format("--out {}: exists and is not an empty folder (shrink writes a new scenario there)",
                                    options.out.string()));
  if (auto valid = playback::require_valid_scenario(options.scenario, options.registry); !valid) return valid.error();
  auto scenario = load_scenario(options.scenario);
  if (!scenario) return scenario.error();
  auto frames = read_transcript(scenario->files.transcript);
  if (!frames) return frames.error();
  const Segmentation seg = segment(*frames, scenario->manifest.frame_limit_bytes);

  ShrinkResult result;
  result.frames_before = frames->size();
  result.units_before = seg.units.size();
  result.handshake_frames = seg.handshake_end;
  WorkDir work;
  if (work.path.empty()) return Error::unreadable(fs::temp_directory_path().string(), "cannot create a work folder");
  // The candidates live in the work folder, away from the scenario's corpus file: the scenario's
  // declarations are written there as the work folder's own corpus file, so every candidate
  // (validated, replayed, or served by the client's serve-fixture) reads the same ones.
  if (auto registry = resolve_registry(scenario->files.dir, options.registry); !registry) {
    return registry.error();
  } else {
    std::vector<std::pair<std::string, PathCompare>> declared;
    for (const JsonPath& path : registry->paths()) declared.emplace_back(path.text(), registry->compare_of(path.text()));
    if (auto written = write_corpus_file(work.path / kCorpusFileName, declared); !written) return written.error();
  }
  Shrinker shrinker(options, runner, scenario->manifest, *frames, seg, work.path);

  std::vector<std::size_t> all(seg.units.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  auto first = shrinker.run(all);
  if (!first) {
    result.exit_code = 3;
    result.problem = first.error().render();
    return result;
  }
  if (!*first) {
    result.exit_code = 1;
    result.runs = shrinker.runs();
    result.problem = fmt::format("the failure did not reproduce: the {} passed on {} as it is, nothing was written",
                                 options.peer == PeerKind::host ? "host" : "client", options.scenario.string());
    return result;
  }
  result.failure = **first;
  shrinker.expect(**first);
  auto reduction = reduce(seg.units.size(), shrinker, options.max_runs - 1);
  if (!reduction) {
    result.exit_code = 3;
    result.runs = shrinker.runs();
    result.problem = reduction.error().render();
    return result;
  }
  result.runs = shrinker.runs();
  result.invalid_candidates = shrinker.invalid();
  result.budget_exhausted = reduction->budget_exhausted;
  result.units_after = reduction->kept.size();
  const std::vector<std::size_t> kept = candidate_indexes(seg, reduction->kept);
  result.frames_after = kept.size();
  std::vector<std::size_t> lines;
  for (std::size_t i : kept) lines.push_back(i + 1);
  result.kept_lines = line_ranges(lines);
  json::object from{{"scenario", scenario->manifest.scenario},
                    {"transcript", scenario->files.transcript.string()},
                    {"frames", result.frames_before},
                    {"lines", result.kept_lines},
                    {"peer", options.peer == PeerKind::host ? "host" : "client"},
                    {"failure", json::object{{"kind", result.failure->kind},
                                             {"path", result.failure->path},
                                             {"method", result.failure->method}}},
                    {"runs", result.runs}};
  if (auto written = write_scenario(options.out, scenario->manifest, *frames, kept, from); !written)
    return written.error();
  result.out = options.out;
  return result;
}

void render_shrink_text(std::ostream& out, const ShrinkResult& r) {
  if (r.exit_code != 0) {
    out << "shrink: " << r.problem << "\n";
    return;
  }
  out << fmt::format("shrunk to {}: {} -> {} frames (handshake {} + {} of {} exchanges), {} runs{}\n", r.out.string(),
                     r.frames_before, r.frames_after, r.handshake_frames, r.units_after, r.units_before, r.runs,
                     r.invalid_candidates ? fmt::format(", {} candidates refused by validate", r.invalid_candidates) : "");
  out << fmt::format("failure kept: {}\n", r.failure ? r.failure->describe() : std::string());
  out << fmt::format("lines kept of the original transcript: {}\n", r.kept_lines);
  if (r.budget_exhausted)
    out << "the run budget (--max-runs) ran out: the result may not be minimal (run shrink again on it)\n";
}

}  // namespace msptk::shrink
