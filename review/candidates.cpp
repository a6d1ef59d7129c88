#include "msptk/review/candidates.hpp"

#include "msptk/normalizer/mask.hpp"
#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/scenario.hpp"

#include <fmt/format.h>

#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

namespace msptk::review {

namespace fs = std::filesystem;

namespace {

Error io_error(const fs::path& path, const std::string& what, const std::error_code& ec) {
  return Error::unreadable(path.string(), fmt::format("{}: {}", what, ec.message()));
}

Result<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::unreadable(path.string(), "cannot read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string folder_name(const fs::path& path) {
  fs::path p = path.lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  if (p.filename() == "." || p.empty()) p = fs::absolute(p).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  return p.filename().string();
}

}  // namespace

fs::path pending_dir(const fs::path& scenario) { return scenario / kPendingFolder; }

Result<fs::path> store_candidate(const fs::path& scenario, const fs::path& recording) {
  std::error_code ec;
  const fs::path target = pending_dir(scenario);
  std::string pattern = (scenario / ".pending-new-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    return Error::unreadable(scenario.string(), "cannot create a folder for the review candidate");
  const fs::path staging = pattern;
  fs::copy(recording, staging, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
  if (ec) {
    fs::remove_all(staging, ec);
    return io_error(recording, "cannot copy the recording", ec);
  }
  fs::remove_all(target, ec);
  if (ec) return io_error(target, "cannot replace the old candidate", ec);
  fs::rename(staging, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    return io_error(target, "cannot create", ec);
  }
  return target;
}

Result<bool> discard_candidate(const fs::path& scenario) {
  std::error_code ec;
  const fs::path target = pending_dir(scenario);
  if (!fs::exists(target, ec)) return false;
  fs::remove_all(target, ec);
  if (ec) return io_error(target, "cannot remove the candidate", ec);
  return true;
}

Result<std::vector<Candidate>> find_candidates(const std::vector<fs::path>& paths) {
  std::vector<Candidate> out;
  std::set<fs::path> seen;
  auto consider = [&](const fs::path& scenario, const std::string& corpus) {
    std::error_code ec;
    const fs::path key = fs::weakly_canonical(scenario, ec);
    if (!seen.insert(ec ? scenario : key).second) return;
    if (!fs::exists(pending_dir(scenario) / "transcript.ndjson", ec)) return;
    out.push_back({corpus, folder_name(scenario), scenario, pending_dir(scenario)});
  };
  for (const fs::path& path : paths) {
    auto kind = classify_path(path);
    if (!kind) return kind.error();
    if (*kind == PathKind::transcript)
      return Error::usage(fmt::format("{}: a transcript file; review takes corpus or scenario folders", path.string()));
    if (*kind == PathKind::scenario) {
      fs::path parent = fs::absolute(path).lexically_normal();
      if (!parent.has_filename()) parent = parent.parent_path();
      consider(path, folder_name(parent.parent_path()));
      continue;
    }
    auto scenarios = list_corpus(path);
    if (!scenarios) return scenarios.error();
    for (const fs::path& scenario : *scenarios) consider(scenario, folder_name(path));
  }
  return out;
}

Result<Assessment> assess(const Candidate& candidate, const Registry& registry) {
  auto golden = load_scenario(candidate.golden);
  if (!golden) return golden.error();
  auto pending = locate_scenario(candidate.pending);
  if (!pending) return pending.error();
  auto mask = mask_spec_for(*golden, registry, {}, MaskMode::unify);
  if (!mask) return mask.error();
  ScenarioFiles expected = golden->files;
  expected.legs.clear();
  ScenarioFiles actual = *pending;
  actual.legs.clear();
  auto report = diff_scenarios(expected, actual, DiffOptions{*mask, Side::both});
  if (!report) return report.error();
  Assessment out;
  out.verdict = report->verdict();
  out.diff = std::move(*report);
  return out;
}

Result<void> accept(const Candidate& candidate, Verdict verdict, const Justification* justification) {
  if (verdict == Verdict::divergent) {
    if (!justification)
      return Error::usage(fmt::format("{}: the candidate is divergent: accepting it needs a justification (cite, "
                                      "rationale, trackingIssue)",
                                      candidate.id()));
    for (const auto& [member, value] : {std::pair{"cite", &justification->cite},
                                        {"rationale", &justification->rationale},
                                        {"trackingIssue", &justification->tracking_issue}})
      if (value->find_first_not_of(" \t\r\n") == std::string::npos)
        return Error::usage(fmt::format("{}: regenerationJustification.{} is empty", candidate.id(), member));
  }
  auto golden_manifest = read_manifest(candidate.golden / "manifest.json");
  if (!golden_manifest) return golden_manifest.error();
  Manifest manifest = std::move(golden_manifest->manifest);
  std::error_code ec;
  if (fs::exists(candidate.pending / "manifest.json", ec)) {
    auto pending_manifest = read_manifest(candidate.pending / "manifest.json");
    if (!pending_manifest) return pending_manifest.error();
    if (pending_manifest->manifest.capture) manifest.capture = pending_manifest->manifest.capture;
    if (!pending_manifest->manifest.fingerprint.empty()) manifest.fingerprint = pending_manifest->manifest.fingerprint;
  }
  manifest.provenance = "host-generated";
  if (verdict == Verdict::divergent) {
    RegenerationJustification j;
    j.cite = justification->cite;
    j.rationale = justification->rationale;
    j.tracking_issue = justification->tracking_issue;
    manifest.regeneration_justification = std::move(j);
  }

  auto transcript = read_file(candidate.pending / "transcript.ndjson");
  if (!transcript) return transcript.error();
  const fs::path golden_transcript = candidate.golden / "transcript.ndjson";
  fs::perms perms = fs::status(golden_transcript, ec).permissions() & fs::perms::all;
  if (ec || perms == fs::perms::none)
    perms = fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read;
  if (auto ok = write_file_atomic(golden_transcript, *transcript, perms); !ok) return ok.error();
  fs::perms manifest_perms = fs::status(candidate.golden / "manifest.json", ec).permissions() & fs::perms::all;
  if (ec || manifest_perms == fs::perms::none) manifest_perms = perms;
  if (auto ok = write_manifest(candidate.golden / "manifest.json", manifest, manifest_perms); !ok) return ok.error();
  fs::remove_all(candidate.pending, ec);
  if (ec) return io_error(candidate.pending, "accepted, but the candidate folder could not be removed", ec);
  return {};
}

Result<void> reject(const Candidate& candidate) {
  std::error_code ec;
  fs::remove_all(candidate.pending, ec);
  if (ec) return io_error(candidate.pending, "cannot remove the candidate", ec);
  return {};
}

}  // namespace msptk::review
