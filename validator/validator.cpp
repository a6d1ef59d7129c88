#include "msptk/validator/validator.hpp"
#include "msptk/normalizer/corpus_file.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/transcript/json_locate.hpp"
#include "manifest_rules.hpp"
#include "msptk/transcript/json_io.hpp"
#include "transcript_rules.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

namespace msptk {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

// What the corpus rules need to know about a validated scenario's manifest.
struct ManifestFacts {
  std::string file;
  std::string scenario;  // the declared id
  std::size_t scenario_line = 0;
  std::string fingerprint;
  std::size_t fingerprint_line = 0;
  bool fingerprint_ok = false;
};

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The name of the folder `path` designates ("corpus/x/" is "x"; "." and ".." are resolved).
std::string folder_name(const fs::path& path) {
  fs::path p = path.lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  std::string name = p.filename().string();
  if (name.empty() || name == "." || name == "..") {
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(path, ec);
    if (!canonical.has_filename()) canonical = canonical.parent_path();
    name = canonical.filename().string();
  }
  return name;
}

ScenarioReport validate_one(const fs::path& path, const ValidateOptions& options, ManifestFacts* facts) {
  ScenarioReport report;
  report.path = path.string();
  auto kind = classify_path(path);
  auto files = kind ? locate_scenario(path) : Result<ScenarioFiles>(kind.error());
  if (!files) {
    report.scenario = folder_name(path);
    report.problems.push_back(files.error());
    return report;
  }
  const bool bare = *kind == PathKind::transcript;
  report.scenario = bare ? path.filename().string() : folder_name(path);

  detail::TranscriptContext ctx;
  ctx.file = files->transcript.string();
  ctx.schema = options.schema ? &*options.schema : nullptr;
  ctx.counts = &report;
  ctx.session_rules = !ends_with(files->transcript.filename().string(), "-legs.ndjson");

  // The manifest: read first, because the frame limit and the provenance come from it.
  std::vector<Finding> manifest_findings;
  std::string text;
  json::value value;
  std::optional<ManifestParse> parse;
  if (files->manifest) {
    auto read = read_file(*files->manifest);
    auto parsed = read ? parse_json_file(*files->manifest) : Result<json::value>(read.error());
    if (!parsed) {
      Error error = parsed.error();
      if (error.rule == "json.syntax") error.message = "manifest is " + error.message;
      report.problems.push_back(std::move(error));
      return report;
    }
    text = std::move(*read);
    value = std::move(*parsed);
    parse = parse_manifest(value);
    ctx.frame_limit = parse->manifest.frame_limit_bytes;
    ctx.sdk_tolerance = parse->manifest.is_sdk_tolerance();
    if (options.bundles) {
      const std::string& pin = parse->manifest.fingerprint;
      ctx.schema = options.bundles->find(pin);
      if (!ctx.schema) {
        ctx.schema = &options.bundles->stable();
        manifest_findings.push_back(Finding{
            Severity::note, files->manifest->string(), line_of_path(text, "fingerprint"), "manifest.bundle",
            fmt::format("no bundle under {} has fingerprint {}: validated against the stable bundle {}",
                        options.bundles->dir(), pin.empty() ? "(none)" : pin, ctx.schema->file())});
      }
    }
  } else if (!bare) {
    manifest_findings.push_back(Finding{Severity::error, (files->dir / "manifest.json").string(), 0,
                                        "manifest.missing", "scenario folder has no manifest.json"});
  }

  if (options.bundles && !ctx.schema) ctx.schema = &options.bundles->stable();  // no manifest
  if (ctx.schema) report.bundle = ctx.schema->file();

  std::vector<Finding> transcript_findings;
  const std::size_t problems_before = report.problems.size();
  const std::size_t lines = detail::check_transcript_file(ctx, transcript_findings, report.problems);
  const bool transcript_read = report.problems.size() == problems_before;
  for (const fs::path& legs : files->legs) {
    detail::TranscriptContext legs_ctx = ctx;
    legs_ctx.file = legs.string();
    legs_ctx.session_rules = false;
    detail::check_transcript_file(legs_ctx, transcript_findings, report.problems);
  }

  if (parse) {
    detail::ManifestContext mctx;
    mctx.file = files->manifest->string();
    mctx.text = text;
    mctx.json = &value;
    mctx.parse = &*parse;
    mctx.folder_name = folder_name(files->dir);
    if (transcript_read) mctx.transcript_lines = lines;
    // The scenario's declarations: built-in, its corpus file, --registry (corpus_file.hpp).
    auto registry = resolve_registry(files->dir, options.registry);
    if (!registry) {
      report.problems.push_back(registry.error());
      registry = options.registry;
    }
    mctx.registry = &*registry;
    detail::check_manifest(mctx, manifest_findings);
    if (facts) {
      facts->file = mctx.file;
      const json::object* obj = value.if_object();
      const json::value* scenario = obj ? obj->if_contains("scenario") : nullptr;
      if (scenario && is_json_string(*scenario)) facts->scenario = std::string(scenario->get_string());
      facts->scenario_line = line_of_path(text, "scenario");
      facts->fingerprint = parse->manifest.fingerprint;
      facts->fingerprint_line = line_of_path(text, "fingerprint");
      facts->fingerprint_ok = true;
      for (const ManifestProblem& p : parse->problems)
        if (p.member == "fingerprint") facts->fingerprint_ok = false;
    }
  }
  report.findings = std::move(manifest_findings);
  report.findings.insert(report.findings.end(), transcript_findings.begin(), transcript_findings.end());
  return report;
}

void stale_fingerprints(const std::vector<ManifestFacts>& facts, const std::string& stable,
                        std::vector<Finding>& out) {
  struct Stale {
    const ManifestFacts* first = nullptr;
    std::vector<std::string> scenarios;
  };
  std::map<std::string, Stale> stale;
  std::vector<std::string> order;
  for (const ManifestFacts& f : facts) {
    if (!f.fingerprint_ok || f.fingerprint == stable) continue;
    Stale& s = stale[f.fingerprint];
    if (!s.first) {
      s.first = &f;
      order.push_back(f.fingerprint);
    }
    s.scenarios.push_back(f.scenario);
  }
  for (const std::string& fingerprint : order) {
    const Stale& s = stale[fingerprint];
    std::string names;
    for (std::size_t i = 0; i < s.scenarios.size() && i < 5; ++i) names += (i ? ", " : "") + s.scenarios[i];
    if (s.scenarios.size() > 5) names += fmt::format(" and {} more", s.scenarios.size() - 5);
    out.push_back(Finding{Severity::warning, s.first->file, s.first->fingerprint_line, "corpus.stale-fingerprint",
                          fmt::format("fingerprint {} differs from the stable {}: stale pin in {} scenario{} ({})",
                                      fingerprint, stable, s.scenarios.size(), s.scenarios.size() == 1 ? "" : "s",
                                      names)});
  }
}

}  // namespace

std::vector<Finding> check_manifest_before_writing(const Manifest& manifest, const fs::path& dir,
                                                   const Registry& registry) {
  std::vector<Finding> findings;
  const fs::path file = dir / "manifest.json";
  auto resolved = resolve_registry(dir, registry);
  if (!resolved) {
    const Error& e = resolved.error();
    findings.push_back(Finding{Severity::error, e.file, e.line, e.rule, e.message});
    return findings;
  }
  const std::string text = pretty(manifest.to_json()) + "\n";
  auto value = parse_json_text(text, file.string());
  if (!value) return findings;
  const ManifestParse parse = parse_manifest(*value);
  detail::ManifestContext ctx;
  ctx.file = file.string();
  ctx.text = text;
  ctx.json = &*value;
  ctx.parse = &parse;
  ctx.folder_name = folder_name(dir);
  ctx.registry = &*resolved;
  detail::check_manifest(ctx, findings);
  return findings;
}

ScenarioReport validate_scenario(const fs::path& path, const ValidateOptions& options) {
  return validate_one(path, options, nullptr);
}

ValidationReport validate_paths(const std::vector<fs::path>& paths, const ValidateOptions& options) {
  ValidationReport report;
  std::vector<fs::path> targets;
  for (const fs::path& path : paths) {
    auto kind = classify_path(path);
    if (!kind) {
      report.problems.push_back(kind.error());
      continue;
    }
    if (*kind != PathKind::corpus) {
      targets.push_back(path);
      continue;
    }
    auto scenarios = list_corpus(path);
    if (!scenarios) {
      report.problems.push_back(scenarios.error());
    } else if (scenarios->empty()) {
      report.problems.push_back(Error::unreadable(
          path.string(), "not a scenario or corpus folder (no manifest.json or transcript.ndjson, and no subfolder "
                         "with a manifest.json)"));
    } else {
      targets.insert(targets.end(), scenarios->begin(), scenarios->end());
    }
  }

  std::set<fs::path> seen;
  std::vector<ManifestFacts> facts;
  std::map<std::string, const ManifestFacts*> first_of;  // scenario id -> first manifest declaring it
  facts.reserve(targets.size());
  for (const fs::path& target : targets) {
    std::error_code ec;
    if (!seen.insert(fs::weakly_canonical(target, ec)).second) continue;  // the same folder given twice
    ManifestFacts& f = facts.emplace_back();
    ScenarioReport scenario = validate_one(target, options, &f);
    if (!f.scenario.empty()) {
      auto [it, inserted] = first_of.emplace(f.scenario, &f);
      if (!inserted) {
        scenario.findings.push_back(Finding{Severity::error, f.file, f.scenario_line, "corpus.duplicate-scenario",
                                            fmt::format("scenario id \"{}\" is already used by {}", f.scenario,
                                                        it->second->file)});
      }
    }
    report.scenarios.push_back(std::move(scenario));
  }
  if (options.stable_fingerprint) stale_fingerprints(facts, *options.stable_fingerprint, report.corpus_findings);
  return report;
}

Result<std::string> read_stable_fingerprint(const fs::path& file) {
  auto value = parse_json_file(file);
  if (!value) return value.error();
  const json::object* obj = value->if_object();
  const json::value* fingerprint = obj ? obj->if_contains("fingerprint") : nullptr;
  if (!fingerprint || !is_json_string(*fingerprint)) {
    return Error::malformed(file.string(), 1, "stable.fingerprint",
                            "not a stable bundle manifest: no string \"fingerprint\" member");
  }
  return std::string(fingerprint->get_string());
}

}  // namespace msptk
