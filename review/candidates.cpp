#include "msptk/review/candidates.hpp"

#include "msptk/normalizer/mask.hpp"
#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/scenario.hpp"
#include "msptk/transcript/sha256.hpp"

#include <boost/json.hpp>

#include <fmt/format.h>

#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

namespace msptk::review {

namespace fs = std::filesystem;
namespace json = boost::json;

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

// A file's bytes, nullopt when it does not exist.
Result<std::optional<std::string>> read_if_present(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::optional<std::string>();
  auto text = read_file(path);
  if (!text) return text.error();
  return std::optional<std::string>(std::move(*text));
}

// The golden's transcript and manifest bytes, as one digest.
Result<std::string> golden_digest(const fs::path& golden) {
  Sha256 digest;
  for (const char* name : {"transcript.ndjson", "manifest.json"}) {
    auto bytes = read_if_present(golden / name);
    if (!bytes) return bytes.error();
    digest.update(name);
    digest.update(*bytes ? std::string_view("\1") : std::string_view("\0", 1));
    if (*bytes) digest.update(fmt::format("{}:", (*bytes)->size()));
    if (*bytes) digest.update(**bytes);
  }
  return digest.hex();
}

Error changed(const fs::path& path, const std::string& what) {
  return Error{ErrorKind::unreadable,
               fmt::format("{}: nothing accepted; review it again (msptk review shows the candidate as it is now)", what),
               path.string(), 0, "review.changed"};
}

// Why the capture may never be accepted, from the candidate.json check --update wrote.
Result<std::optional<std::string>> capture_refusal(const fs::path& pending, Verdict verdict) {
  const fs::path file = pending / kCandidateRecord;
  auto text = read_if_present(file);
  if (!text) return text.error();
  if (!*text) {
    if (verdict != Verdict::divergent) return std::optional<std::string>();  // nothing is missing from it
    return std::optional<std::string>(
        fmt::format("{} is missing: the candidate does not say its capture is complete (an older `msptk check "
                    "--update` stopped recording at the first divergence, dropping every frame after it): run "
                    "`msptk check --update` again",
                    file.string()));
  }
  auto doc = parse_json(**text);
  const json::object* obj = doc ? doc->if_object() : nullptr;
  const json::value* complete = obj ? obj->if_contains("complete") : nullptr;
  if (!complete || !complete->is_bool())
    return std::optional<std::string>(fmt::format("{}: not a candidate record ({{\"complete\": true|false, ...}})",
                                                  file.string()));
  if (complete->get_bool()) return std::optional<std::string>();
  std::string problem;
  if (const json::value* p = obj->if_contains("problem"); p && p->is_string()) problem = std::string(p->get_string());
  return std::optional<std::string>(
      fmt::format("the capture is incomplete: the replay stopped before the transcript's end{}, so the candidate "
                  "lacks every frame after that point; a capture cut short is never accepted (run `msptk check "
                  "--update` again)",
                  problem.empty() ? "" : " (" + problem + ")"));
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

Result<fs::path> store_candidate(const fs::path& scenario, const fs::path& recording, const CandidateCapture& capture) {
  std::error_code ec;
  const fs::path target = pending_dir(scenario);
  // Staged inside the scenario (one file system), removed on every error path; a SIGKILL leaves
  // it for the next sweep (folder_rewrite.hpp).
  auto staging_folder = StagingFolder::create_in(scenario, "pending-new");
  if (!staging_folder)
    return Error::unreadable(scenario.string(), "cannot create a folder for the review candidate");
  const fs::path staging = staging_folder->dir();
  fs::copy(recording, staging, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
  if (ec) return io_error(recording, "cannot copy the recording", ec);
  json::object record{{"complete", capture.complete}};
  if (!capture.complete) record["problem"] = capture.problem;
  if (auto written = write_file_atomic(staging / kCandidateRecord, serialize_json(record) + "\n",
                                       fs::perms::owner_read | fs::perms::owner_write);
      !written)
    return written.error();
  fs::remove_all(target, ec);
  if (ec) return io_error(target, "cannot replace the old candidate", ec);
  fs::rename(staging, target, ec);
  if (ec) return io_error(target, "cannot create", ec);
  staging_folder->release();  // it is the candidate now
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
  Assessment out;
  // The bytes read first are the ones judged and, if accepted, written; a side that changes
  // while the differ reads it makes the verdict unreliable.
  auto digest = golden_digest(candidate.golden);
  if (!digest) return digest.error();
  out.golden_digest = std::move(*digest);
  auto transcript = read_file(candidate.pending / "transcript.ndjson");
  if (!transcript) return transcript.error();
  out.transcript = std::move(*transcript);
  auto manifest = read_if_present(candidate.pending / "manifest.json");
  if (!manifest) return manifest.error();
  out.manifest = std::move(*manifest);

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
  out.verdict = report->verdict();
  out.diff = std::move(*report);

  auto again = read_file(candidate.pending / "transcript.ndjson");
  auto manifest_again = read_if_present(candidate.pending / "manifest.json");
  auto digest_again = golden_digest(candidate.golden);
  if (!again || *again != out.transcript || !manifest_again || *manifest_again != out.manifest)
    return changed(candidate.pending, "the candidate changed while it was being assessed");
  if (!digest_again || *digest_again != out.golden_digest)
    return changed(candidate.golden, "the golden scenario changed while the candidate was being assessed");

  auto refusal = capture_refusal(candidate.pending, out.verdict);
  if (!refusal) return refusal.error();
  out.refusal = std::move(*refusal);
  if (out.manifest) {
    auto parsed = parse_manifest_text(*out.manifest, (candidate.pending / "manifest.json").string());
    if (!parsed) return parsed.error();
    const Manifest& m = parsed->manifest;
    if (!out.refusal && m.scenario != golden->manifest.scenario)
      out.refusal = fmt::format("the candidate's manifest names scenario \"{}\", not \"{}\": it is not a recording "
                                "of this scenario",
                                m.scenario, golden->manifest.scenario);
    if (!m.fingerprint.empty() && m.fingerprint != golden->manifest.fingerprint)
      out.fingerprint = FingerprintChange{golden->manifest.fingerprint, m.fingerprint};
  }
  return out;
}

Result<void> accept(const Candidate& candidate, const Assessment& assessment, const Justification* justification,
                    const FolderRewriteSeams& seams) {
  if (assessment.verdict == Verdict::divergent) {
    if (!justification)
      return Error::usage(fmt::format("{}: the candidate is divergent: accepting it needs a justification (cite, "
                                      "rationale, trackingIssue)",
                                      candidate.id()));
    if (auto blank = blank_justification_member(*justification))
      return Error::usage(fmt::format("{}: regenerationJustification.{} is empty (blank counts as empty)",
                                      candidate.id(), *blank));
  }
  if (assessment.refusal)
    return Error{ErrorKind::conformance, fmt::format("not accepted: {}", *assessment.refusal),
                 candidate.pending.string(), 0, "review.refused"};

  // Exactly what was assessed and shown, or nothing.
  auto transcript = read_file(candidate.pending / "transcript.ndjson");
  auto manifest_now = read_if_present(candidate.pending / "manifest.json");
  if (!transcript || *transcript != assessment.transcript || !manifest_now || *manifest_now != assessment.manifest)
    return changed(candidate.pending, "the candidate on disk is no longer the one assessed and shown");
  auto digest = golden_digest(candidate.golden);
  if (!digest || *digest != assessment.golden_digest)
    return changed(candidate.golden, "the golden scenario changed since the candidate was assessed");

  auto golden_manifest = read_manifest(candidate.golden / "manifest.json");
  if (!golden_manifest) return golden_manifest.error();
  Manifest manifest = std::move(golden_manifest->manifest);  // its pin, its normalize list: kept
  if (assessment.manifest) {
    auto pending_manifest = parse_manifest_text(*assessment.manifest, (candidate.pending / "manifest.json").string());
    if (!pending_manifest) return pending_manifest.error();
    if (pending_manifest->manifest.capture) manifest.capture = pending_manifest->manifest.capture;
  }
  manifest.provenance = "host-generated";
  if (assessment.verdict == Verdict::divergent) {
    Justification j = *justification;
    j.extra = {};
    manifest.regeneration_justification = std::move(j);
  }
  // One exchange: the golden folder becomes entirely new, and the candidate (not copied into the
  // staged folder) goes with the old contents.
  return rewrite_folder(candidate.golden,
                        {{"transcript.ndjson", assessment.transcript}, {"manifest.json", pretty(manifest.to_json())}},
                        {kPendingFolder}, seams);
}

Result<void> reject(const Candidate& candidate) {
  std::error_code ec;
  fs::remove_all(candidate.pending, ec);
  if (ec) return io_error(candidate.pending, "cannot remove the candidate", ec);
  return {};
}

}  // namespace msptk::review
