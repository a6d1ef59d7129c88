// A Scenario is a folder holding one recorded connection: transcript.ndjson, manifest.json,
// optional *-legs.ndjson sessions and an optional records.jsonl that msptk never parses.
// A corpus is a folder of scenario folders. This header resolves the paths users give
// (scenario folder, corpus folder, or a transcript file) into those pieces.
#pragma once

#include "msptk/transcript/manifest.hpp"

#include <filesystem>
#include <optional>
#include <vector>

namespace msptk {

struct ScenarioFiles {
  std::filesystem::path dir;         // the scenario folder (for a bare transcript: its folder)
  std::filesystem::path transcript;  // transcript.ndjson, or the file given
  std::optional<std::filesystem::path> manifest;  // manifest.json when it exists
  std::vector<std::filesystem::path> legs;        // *-legs.ndjson, sorted
};

struct Scenario {
  ScenarioFiles files;
  Manifest manifest;  // defaults when there is no manifest.json
  std::vector<ManifestProblem> manifest_problems;
};

enum class PathKind { scenario, corpus, transcript };

// What a user's PATH is: a folder with manifest.json or transcript.ndjson is a scenario, a
// folder whose subfolders hold manifest.json is a corpus, a regular file is a transcript.
Result<PathKind> classify_path(const std::filesystem::path& path);

// The scenario folders of a corpus (subfolders with a manifest.json), sorted by name.
Result<std::vector<std::filesystem::path>> list_corpus(const std::filesystem::path& corpus);

// Locates the files of a scenario folder or of a transcript file.
Result<ScenarioFiles> locate_scenario(const std::filesystem::path& path);

// Locates and reads the manifest (when present). A transcript file given alone uses the
// manifest.json beside it only when that file's name is transcript.ndjson.
Result<Scenario> load_scenario(const std::filesystem::path& path);

}  // namespace msptk
