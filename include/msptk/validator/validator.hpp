// The validator checks scenarios, corpora and transcript files against the rules of the MSP
// transcript format (FORMAT.md and seed 000) and returns a ValidationReport. Rule groups:
//   file.*      each line of a transcript file (JSON object with dir and raw, UTF-8, LF)
//   frame.*     each frame's raw bytes (JSON-RPC 2.0 envelope, CR, newline, size limit); a
//               client frame breaking one is legal when the server's next response rejects it
//               as seed 000 says (-32700 parse error with id null, -32002 inputTooLarge with
//               data.limitBytes, -32600 invalidRequest)
//   session.*   the main transcript's handshake and request/response pairing (not legs)
//   manifest.*  manifest.json alone and against its folder, transcript and the Registry
//   corpus.*    across scenarios: unique ids, fingerprint staleness
// With a schema bundle (--schema), frames are also validated against it: params of requests
// and notifications, the result of a response against the request it answers, an error
// response's error object and its code against the bundle's errors table (frame.schema,
// frame.unknown-enum, frame.unknown-method, frame.error-kind, frame.unknown-error-code).
// The whole catalogue with statements is in rules.hpp.
//
// Validation reads transcripts line by line (never a whole file) and never throws; anything
// it cannot read becomes a problem in the report, so one bad scenario does not hide the rest.
#pragma once

#include "msptk/normalizer/registry.hpp"
#include "msptk/transcript/scenario.hpp"
#include "msptk/validator/report.hpp"
#include "msptk/schema/bundle.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace msptk {

struct ValidateOptions {
  Registry registry = Registry::builtin();      // allowed normalize paths
  std::optional<std::string> stable_fingerprint;  // from --stable-manifest: enables staleness
  // From --schema BUNDLE: every frame the bundle describes is validated against it.
  std::optional<schema::Bundle> schema;
  // From --schema auto --bundles DIR: each scenario against the bundle of its manifest's
  // fingerprint, else the stable one (with a manifest.bundle note).
  std::optional<schema::BundleSet> bundles;
};

// Validates every PATH (scenario folder, corpus folder, or transcript file) and the corpus
// rules across all of them.
ValidationReport validate_paths(const std::vector<std::filesystem::path>& paths, const ValidateOptions& options);

// Validates one scenario folder or one transcript file (corpus rules excepted).
ScenarioReport validate_scenario(const std::filesystem::path& path, const ValidateOptions& options);

// The frame and session rules over frames in memory, as a scenario's main transcript written by
// TranscriptWriter (canonical lines) would get them: what `validate` finds in them (msptk
// shrink's fuzz target checks every candidate with it, without writing files).
std::vector<Finding> validate_frames(const std::vector<Frame>& frames, std::int64_t frame_limit = kDefaultFrameLimitBytes);

// The id by which a server may reject a client frame over serverConfig.frameLimitBytes with
// inputTooLarge (seed 000): the frame's `id` (a string or an integer) when the frame is JSON, else
// the first `"id":` member of its bytes holding one. validate pairs the rejection with the frame
// by it (or by a null id), and so does msptk shrink's segmentation.
std::optional<std::string> too_large_frame_id(const Frame& frame);

// The manifest.* rules over a manifest about to be written as `dir`/manifest.json (msptk record
// checks what it will write before it spawns the host): the registry is resolved for `dir`
// (corpus_file.hpp) from `registry`; rules that need the transcript are not applied.
std::vector<Finding> check_manifest_before_writing(const Manifest& manifest, const std::filesystem::path& dir,
                                                   const Registry& registry);

// Reads the "fingerprint" member of a stable bundle manifest (stable/manifest.json).
Result<std::string> read_stable_fingerprint(const std::filesystem::path& file);

}  // namespace msptk
