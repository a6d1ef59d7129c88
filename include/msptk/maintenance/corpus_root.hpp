// A CorpusRoot is the `schema/msp` folder of an MSP source tree, the layout the upstream
// harness `muse-conformance` maintains: `transcripts/<scenario>/` (the recorded connections),
// `stable/` (the current stable bundle: `manifest.json` with its `fingerprint`, and
// `msp.schema.json`), `changelog/acknowledgments.json` (the ledger that waives stale pins) and
// other bundle folders beside them (`release-baseline/`, `experimental/`). `--root` names either
// a tree holding `schema/msp/` or such a folder itself.
#pragma once

#include "msptk/transcript/error.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace msptk::maintenance {

struct CorpusRoot {
  std::filesystem::path msp;          // the schema/msp folder
  std::filesystem::path tree;         // the folder --root named
  std::string prefix;                 // msp relative to tree: "schema/msp/" or ""

  std::filesystem::path transcripts() const { return msp / "transcripts"; }
  std::filesystem::path stable() const { return msp / "stable"; }
  std::filesystem::path ledger() const { return msp / "changelog" / "acknowledgments.json"; }
  // The scenario folders under transcripts/ (each with a manifest.json), sorted by name.
  std::vector<std::filesystem::path> scenarios() const;
};

// `dir` holding `schema/msp/transcripts/`, or being a folder with `transcripts/` itself.
// Anything else is a usage error naming what was looked for.
Result<CorpusRoot> locate_corpus_root(const std::filesystem::path& dir);

}  // namespace msptk::maintenance
