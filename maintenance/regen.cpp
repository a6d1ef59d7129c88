// Regen: replay with a recording, then untouched / replaced / refused (regen.hpp).
#include "msptk/maintenance/regen.hpp"
#include "msptk/transcript/display.hpp"

#include "msptk/differ/render.hpp"
#include "msptk/playback/member_scan.hpp"
#include "msptk/playback/replay_render.hpp"
#include "msptk/transcript/folder_rewrite.hpp"
#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/json_locate.hpp"
#include "msptk/transcript/manifest.hpp"
#include "msptk/transcript/scenario.hpp"
#include "msptk/validator/validator.hpp"

#include <boost/json.hpp>

#include <fmt/format.h>

#include <sstream>

namespace msptk::maintenance {

namespace fs = std::filesystem;
namespace json = boost::json;

std::string_view to_string(RegenOutcome outcome) {
  switch (outcome) {
    case RegenOutcome::identical: return "identical";
    case RegenOutcome::equivalent: return "equivalent";
    case RegenOutcome::divergent: return "divergent";
  }
  return "divergent";
}

namespace {

// The manifest's justification problem, if it has one that is partial.
std::optional<Error> partial_justification(const Scenario& scenario) {
  for (const ManifestProblem& p : scenario.manifest_problems) {
    if (!p.member.starts_with("regenerationJustification")) continue;
    std::size_t line = 1;
    if (auto text = read_file(*scenario.files.manifest)) line = line_of_path(*text, p.member);
    return Error{ErrorKind::conformance,
                 fmt::format("{}: a partial regenerationJustification waives nothing, so regen writes nothing (it "
                             "needs non-empty cite, rationale and trackingIssue)",
                             p.message),
                 scenario.files.manifest->string(), line, "regen.justification"};
  }
  return std::nullopt;
}

// The first error `validate` finds, as an exit-3 error.
std::optional<Error> invalid(const fs::path& dir, const Registry& registry) {
  ValidateOptions options;
  options.registry = registry;
  ScenarioReport report = validate_scenario(dir, options);
  if (!report.problems.empty()) return report.problems.front();
  for (const Finding& f : report.findings)
    if (f.severity == Severity::error)
      return Error::malformed(f.file, f.line, f.rule, fmt::format("invalid scenario, not regenerated: {}", f.message));
  return std::nullopt;
}

// The manifest text with `provenance` set to host-generated and `capture` set to the
// recording's (how this host ran: recorder, environment, exit), every other byte kept.
Result<std::string> host_generated(const std::string& text, const std::string& file,
                                   const std::optional<boost::json::object>& capture) {
  const playback::MemberScan scan = playback::scan_members(text);
  auto token = scan.token(text, "provenance");
  if (!token) return Error::malformed(file, 1, "manifest.provenance", "no provenance member to set to host-generated");
  std::string out = *token == "\"host-generated\"" ? text : *playback::splice_member(text, "provenance", "\"host-generated\"");
  if (capture) {
    std::ostringstream value;
    write_pretty(value, *capture, 2);
    auto with = playback::set_member(out, "capture", value.str());
    if (!with) return Error::malformed(file, 1, "manifest.capture", "cannot set the capture member");
    out = std::move(*with);
  }
  return out;
}

}  // namespace

Result<RegenResult> regen_scenario(const RegenOptions& options) {
  ReplayEnv env = ReplayEnv::system();
  return regen_scenario(options, env);
}

Result<RegenResult> regen_scenario(const RegenOptions& options, ReplayEnv& env) {
  if (options.host_argv.empty()) return Error::usage("no HOST given: msptk regen --transcript DIR -- HOST [ARGS...]");
  auto scenario = load_scenario(options.scenario);
  if (!scenario) return scenario.error();
  if (!scenario->files.manifest)
    return Error::unreadable((scenario->files.dir / "manifest.json").string(),
                             "missing: regen replays the scenario with its pinned configuration");
  if (scenario->manifest.is_sdk_tolerance())
    return Error::usage(fmt::format("{}: scenario \"{}\" is sdk-tolerance: it holds shapes a real host cannot emit by "
                                    "design, so it is never regenerated from a host",
                                    scenario->files.dir.string(), scenario->manifest.scenario));
  if (auto partial = partial_justification(*scenario)) return *partial;
  if (auto bad = invalid(scenario->files.dir, options.registry)) return *bad;
  const fs::path dir = scenario->files.dir;

  RegenResult result;
  result.scenario = scenario->manifest.scenario;
  result.provenance_before = scenario->manifest.provenance;
  // Any spelling of the folder (DIR/, ., relative, a symlink) stages beside the same folder;
  // messages keep the user's spelling.
  auto folder = resolve_folder(dir);
  if (!folder) return folder.error();
  auto staging = StagingFolder::create(*folder, "regen");
  if (!staging) return staging.error();
  const fs::path capture = staging->dir() / "capture";

  ReplayOptions replay;
  replay.scenario = dir;
  replay.host_argv = options.host_argv;
  replay.record_dir = capture;
  replay.timeout_ms = options.timeout_ms;
  replay.close_timeout_ms = options.close_timeout_ms;
  replay.environment = options.environment;
  replay.registry = options.registry;
  replay.keep_going = true;
  auto run = replay_scenario(replay, env);
  if (!run) return run.error();
  result.replay = std::move(*run);
  const ReplayResult& r = result.replay;
  if (r.exit_code == 3) {
    return Error{ErrorKind::peer, fmt::format("the host could not be replayed, nothing regenerated: {}", r.problem),
                 dir.string(), 0, "regen.host"};
  }
  if (r.recording_failure) return *r.recording_failure;
  result.complete_capture = r.complete();

  auto golden = read_file(scenario->files.transcript);
  if (!golden) return golden.error();
  auto captured = read_file(capture / "transcript.ndjson");
  if (!captured) return captured.error();
  if (*golden == *captured) {
    result.outcome = RegenOutcome::identical;
    return result;
  }
  auto spec = mask_spec_for(*scenario, options.registry, {}, MaskMode::unify);
  if (!spec) return spec.error();
  DiffOptions diff_options;
  diff_options.mask = *spec;
  auto diff = diff_transcripts(scenario->files.transcript, capture / "transcript.ndjson", diff_options);
  if (!diff) return diff.error();
  DiffReport report;
  report.comparisons.push_back(std::move(*diff));
  const Verdict verdict = report.verdict();
  result.diff = std::move(report);
  result.outcome = verdict == Verdict::divergent || !result.complete_capture ? RegenOutcome::divergent
                                                                             : RegenOutcome::equivalent;
  if (result.outcome == RegenOutcome::divergent) {
    result.justified = scenario->manifest.regeneration_justification.has_value() && result.complete_capture;
    if (!result.justified) {
      result.exit_code = 1;
      return result;
    }
  }

  auto manifest_text = read_file(*scenario->files.manifest);
  if (!manifest_text) return manifest_text.error();
  std::optional<boost::json::object> capture_info;
  if (auto recorded = read_manifest(capture / "manifest.json"); recorded && recorded->manifest.capture) {
    capture_info = *recorded->manifest.capture;
    (*capture_info)["recorder"] = "msptk regen";
  }
  auto manifest = host_generated(*manifest_text, scenario->files.manifest->string(), capture_info);
  if (!manifest) return manifest.error();
  // The whole folder at once (transcript/folder_rewrite.hpp): entirely old or entirely new.
  auto rewritten = rewrite_folder(dir, {{"transcript.ndjson", std::move(*captured)}, {"manifest.json", std::move(*manifest)}},
                                  {}, options.rewrite);
  if (!rewritten) {
    // The report stands; the failure is the CLI's error (stderr, exit 3).
    result.write_failure = rewritten.error();
    result.exit_code = 3;
    return result;
  }
  result.rewritten = true;
  return result;
}

void render_regen_text(const RegenResult& result, std::ostream& out) {
  // Names and values quote input: display text (transcript/display.hpp).
  const std::string file = display_text(result.replay.report.expected_file);
  const std::string provenance_before = display_text(result.provenance_before);
  if (result.diff) {
    render_text(out, *result.diff);
  }
  if (result.write_failure) {
    out << fmt::format("{}: {}: the rewrite failed, the scenario is unchanged: {}\n", file, to_string(result.outcome),
                       display_text(result.write_failure->render()));
    return;
  }
  switch (result.outcome) {
    case RegenOutcome::identical:
      out << fmt::format("{}: identical: the host's capture has the fixture's bytes; nothing written\n", file);
      return;
    case RegenOutcome::equivalent:
      out << fmt::format("{}: equivalent under the manifest's normalize list: replaced by the host's capture, "
                         "provenance {} -> host-generated\n",
                         file, provenance_before);
      return;
    case RegenOutcome::divergent: break;
  }
  if (!result.complete_capture)
    out << fmt::format("{}: the capture is incomplete ({}): it is never written\n", file,
                       display_text(result.replay.stop_problem));
  else if (!result.replay.problem.empty())
    out << fmt::format("{}: first divergence: {}\n", file, display_text(result.replay.problem));
  out << "host wrong or fixture wrong?\n";
  if (result.rewritten)
    out << fmt::format("{}: divergent, rewritten under the manifest's regenerationJustification (which stays); "
                       "provenance {} -> host-generated\n",
                       file, provenance_before);
  else
    out << fmt::format("{}: divergent: nothing rewritten (a rewrite needs a complete regenerationJustification in "
                       "the manifest: cite, rationale, trackingIssue)\n",
                       file);
}

}  // namespace msptk::maintenance
