// Drift is what changed between the schema bundle a manifest is pinned to and the stable one,
// classified for corpus maintenance. The two `msp.schema.json` documents are walked together
// and every change is named by its JSON pointer (RFC 6901, in the stable bundle's terms; rows
// of keyed tables such as `errors` are addressed by their key: `/errors/-32603`):
//
// - additive, a whitelist: an added method, notification, server request or definition (an
//   entry of `methods`, `notifications`, `requests`, `$defs`, `definitions`), an added optional
//   member (an entry of `properties` / `patternProperties` not in `required`), an added row of a
//   keyed table (`errors` by `code`, `reserved` by `identifier`, ...), an added value of an
//   open enum (`"x-msp-openness": "open"` on both sides);
// - annotation: `description`, `title`, `$comment`, `examples` changed (never affects validity;
//   it does not make drift non-additive);
// - non-additive: everything else: anything removed, retyped (`type`, `$ref`), made required or
//   no longer required, a closed enum changed, a keyword added to a schema, a scalar changed.
//
// Drift as a whole is additive when it has no non-additive change, non-additive otherwise, and
// unclassified when the pinned bundle is not at hand (BundleIndex found no bundle with that
// fingerprint).
#pragma once

#include "msptk/transcript/error.hpp"

#include <boost/json/value.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace msptk::maintenance {

enum class ChangeKind {
  added,            // additive: a new method, definition, optional member, table row
  added_required,   // a new member that is required
  removed,
  retyped,          // type or $ref changed
  made_required,
  made_optional,
  enum_added_open,  // additive: a value added to an open enum
  enum_changed,     // a closed enum's values changed, or a value removed from an open one
  constraint,       // a keyword added to a schema, or a value changed
  annotation,       // description/title/$comment/examples
};
std::string_view to_string(ChangeKind kind);
bool is_additive(ChangeKind kind);  // added, enum_added_open, annotation

struct SchemaChange {
  std::string pointer;  // JSON pointer of the changed place
  ChangeKind kind = ChangeKind::constraint;
  std::string detail;   // "method added", "type \"string\" -> [\"string\",\"null\"]", "value \"x\" added"
};

enum class DriftClass { additive, non_additive, unclassified };
std::string_view to_string(DriftClass drift);  // "additive", "non-additive", "unclassified"

struct Drift {
  DriftClass kind = DriftClass::unclassified;
  std::optional<std::filesystem::path> pinned_bundle;  // the pinned bundle's folder, when at hand
  std::vector<SchemaChange> changes;                   // sorted by pointer
  std::size_t non_additive() const;
  std::size_t annotations() const;
};

// Every change from `pinned` to `stable` (two msp.schema.json documents), sorted by pointer.
std::vector<SchemaChange> compare_schemas(const boost::json::value& pinned, const boost::json::value& stable);

// The classification of a list of changes (never unclassified).
DriftClass classify(const std::vector<SchemaChange>& changes);

// The bundles found under some folders: every folder (the given one or any below it) holding a
// `manifest.json` with a `fingerprint` and an `msp.schema.json`, by fingerprint.
struct BundleIndex {
  std::vector<std::filesystem::path> searched;              // the folders given
  std::map<std::string, std::filesystem::path> by_fingerprint;  // fingerprint -> bundle folder

  // The drift from the bundle `pinned` to the bundle `stable`: unclassified when `pinned` is
  // not in the index; an unreadable or non-JSON schema is an error (exit 3).
  Result<Drift> drift(const std::string& pinned, const std::filesystem::path& stable_bundle) const;
};

// Scans `dirs` (missing folders are skipped; `transcripts/` folders are not searched).
BundleIndex index_bundles(const std::vector<std::filesystem::path>& dirs);

}  // namespace msptk::maintenance
