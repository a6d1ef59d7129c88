// Staleness is the state of a corpus's fingerprint pins: every scenario manifest's
// `fingerprint` (the schema bundle it was written against) compared with the stable bundle's
// (`stable/manifest.json`). A pin is current (equal), acknowledged (different, but waived by
// an entry of the acknowledgment ledger for exactly this manifest, this pin and this stable
// fingerprint: ledger.hpp) or stale (a failure, exit 1). For every fingerprint that is not
// current, the drift from its bundle to the stable one is classified when that bundle is at
// hand (drift.hpp; the bundles are looked for under `bundles`, by default the bundle folders
// beside `transcripts/`). The report is data; render.hpp writes text or JSON.
#pragma once

#include "msptk/maintenance/corpus_root.hpp"
#include "msptk/maintenance/drift.hpp"
#include "msptk/maintenance/ledger.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace msptk::maintenance {

enum class PinState { current, acknowledged, stale };
std::string_view to_string(PinState state);

struct Pin {
  std::string scenario;             // the scenario folder's name
  std::filesystem::path manifest;   // its manifest.json
  std::string ledger_path;          // as the ledger names it: schema/msp/transcripts/<scenario>/manifest.json
  std::size_t line = 0;             // the line of `fingerprint` in the manifest
  // The pin: the string's value; "" when the manifest has none; for a pin that is not a string
  // (a number such as 1e400, null, an object) its JSON text exactly as written, `not_a_string`
  // set: such a pin is never current, and reports show that text, never a rounded double.
  std::string fingerprint;
  bool not_a_string = false;
  PinState state = PinState::stale;
  std::optional<Acknowledgment> acknowledgment;  // the waiver, when acknowledged
};

struct StalenessOptions {
  std::filesystem::path root;                  // --root (a tree with schema/msp/, or schema/msp itself)
  std::vector<std::filesystem::path> bundles;  // --bundles; empty: the bundle folders beside transcripts/
};

struct StalenessReport {
  CorpusRoot root;
  std::filesystem::path stable_manifest;
  std::string stable_fingerprint;
  Ledger ledger;
  BundleIndex bundles;
  std::vector<Pin> pins;                   // one per scenario manifest, in folder order
  std::map<std::string, Drift> drift;      // per fingerprint that is not current

  std::size_t count(PinState state) const;
  // The pins at `fingerprint` in `state`.
  std::vector<const Pin*> pins_at(const std::string& fingerprint) const;
  bool passed() const { return count(PinState::stale) == 0; }
  int exit_code() const { return passed() ? 0 : 1; }
};

// Errors: a root that is not a corpus or a malformed ledger (usage, exit 2), a stable manifest
// or scenario manifest that cannot be read or parsed (exit 3).
Result<StalenessReport> check_staleness(const StalenessOptions& options);

}  // namespace msptk::maintenance
