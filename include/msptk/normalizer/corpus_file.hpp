// A corpus file (`msptk-corpus.json`) holds a corpus's declarations: the paths its scenarios'
// manifests may name in `normalize` beyond the built-in five, and how each is compared.
//
//   {"kind": "msptkCorpus",
//    "paths": {"params.sessionId": "unify", "params.emittedAtMs": "non-negative-integer",
//              "result.session.createdAt": "rfc3339", "params.note": "erase"}}
//
// A scenario's corpus file is found the way git finds `.gitattributes`: the nearest
// `msptk-corpus.json` in the scenario folder or a folder above it; the walk stops at the folder
// holding `.git` (the repository root) or at the file system's root. Upstream manifests keep
// their meaning: without a corpus file the registry is the built-in one, all unified.
//
// resolve_registry() is THE place a scenario's declarations come from: the built-in registry,
// then the corpus file, then the explicit `--registry FILE` entries (which override). Every verb
// that reads a manifest goes through it (mask_spec_for, validate_scenario, record's check).
#pragma once

#include "msptk/normalizer/registry.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace msptk {

inline constexpr const char* kCorpusFileName = "msptk-corpus.json";

// The corpus file nearest to `scenario_dir` (which need not exist yet), if any.
std::optional<std::filesystem::path> find_corpus_file(const std::filesystem::path& scenario_dir);

// Where the corpus file of `scenario_dir` is: the one found, else a new one in the folder above
// the scenario (the corpus folder).
std::filesystem::path corpus_file_for(const std::filesystem::path& scenario_dir);

// A corpus file as messages name it: relative to the current folder when it is below it, else
// absolute.
std::string display_path(const std::filesystem::path& file);

// The registry of `scenario_dir`: built-in + its corpus file + `explicit_registry` (the
// built-in registry extended by --registry). add_to() names the corpus file. An unreadable or
// malformed corpus file is an error naming it.
Result<Registry> resolve_registry(const std::filesystem::path& scenario_dir, const Registry& explicit_registry);

// A file of paths, one a line (record --normalize-file): blank lines and lines whose first
// non-blank character is '#' are skipped, the rest trimmed. A line that is not a path is an
// error naming FILE:LINE.
Result<std::vector<std::string>> read_path_list(const std::filesystem::path& file);

// Writes `declarations` into the corpus file `file`, keeping what it already declares (a path
// already there gets the new comparison); creates the file when it does not exist.
Result<void> write_corpus_file(const std::filesystem::path& file,
                               const std::vector<std::pair<std::string, PathCompare>>& declarations);

}  // namespace msptk
