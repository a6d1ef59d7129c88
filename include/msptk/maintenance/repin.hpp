// Repin moves the fingerprint pin of manifests whose drift to the stable bundle is additive
// (drift.hpp: the recorded frames stay valid instances of the stable bundle) to the stable
// fingerprint. Only the pin's value token is replaced in the manifest's text: every other
// byte (member order, indentation, unknown members, the final newline) is kept, and the file
// is replaced atomically (temporary file, fsync, rename; its permissions kept). Acknowledged
// pins are skipped (the ledger already waives them), non-additive or unclassified drift is
// left for a person (listed; exit 1). Transcripts, the ledger and the bundles are never
// touched. A dry run computes the same plan and writes nothing.
#pragma once

#include "msptk/maintenance/staleness.hpp"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::maintenance {

enum class RepinAction {
  repinned,      // the pin was rewritten (would be, in a dry run)
  current,       // already the stable fingerprint
  acknowledged,  // waived by the ledger: left as it is
  left,          // non-additive or unclassified drift: for a person
};
std::string_view to_string(RepinAction action);

struct RepinEntry {
  Pin pin;
  RepinAction action = RepinAction::left;
  DriftClass drift = DriftClass::unclassified;  // of the pin's fingerprint (when not current)
};

struct RepinOptions {
  StalenessOptions staleness;
  bool dry_run = false;
  // Replaces a manifest's contents (the seam tests use to fail a write); default: atomic.
  std::function<Result<void>(const std::filesystem::path&, std::string_view)> write;
};

struct RepinReport {
  StalenessReport staleness;
  bool dry_run = false;
  std::vector<RepinEntry> entries;  // one per manifest, in folder order
  std::size_t count(RepinAction action) const;
  int exit_code() const { return count(RepinAction::left) > 0 ? 1 : 0; }
};

// `text` (a manifest) with the value of its top-level `fingerprint` member replaced by
// `fingerprint`, every other byte kept. A text without exactly one top-level string
// `fingerprint` member is malformed (naming `file` and the member's line).
Result<std::string> with_fingerprint(std::string_view text, std::string_view fingerprint, const std::string& file);

// Errors: those of check_staleness, and a write that fails (exit 3; manifests written before
// it stay repinned, each write being atomic on its own).
Result<RepinReport> repin(const RepinOptions& options);

void render_repin_text(const RepinReport& report, std::ostream& out);

}  // namespace msptk::maintenance
