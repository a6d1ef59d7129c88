// The Registry is the list of paths that a manifest may declare as nondeterministic
// (MATCHING.md §4: "undeclared normalization is refused"), and how each declared path is
// compared. It starts with the five paths the public corpus uses, all unified, and grows only by
// explicit configuration, never silently: a scenario's corpus file (`msptk-corpus.json`,
// corpus_file.hpp, found by walking up from the scenario folder) and `--registry FILE` (a JSON
// array of path strings, or a file of the corpus file's shape). resolve_registry() in
// corpus_file.hpp is the one place that puts the three together for a scenario.
//
// Per path, a comparison: `unify` (a one-to-one pairing, the default), `erase` (only presence
// is compared: timestamps, durations), or erase with a typed check (both values must be a UUID,
// an RFC 3339 date-time, a non-negative integer).
#pragma once

#include "msptk/normalizer/path.hpp"

#include <boost/json/value.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk {

enum class MaskMode { unify, erase };

std::string_view to_string(MaskMode mode);
std::optional<MaskMode> parse_mask_mode(std::string_view text);

// The typed check of an erased path: the value is not compared, but it must be of this type.
enum class ValueCheck { none, uuid, rfc3339, non_negative_integer };

// How the values at one declared path are compared.
struct PathCompare {
  MaskMode mode = MaskMode::unify;
  ValueCheck check = ValueCheck::none;  // with erase only

  bool operator==(const PathCompare&) const = default;
};

// The corpus file's words for a comparison: "unify", "erase", "uuid", "rfc3339",
// "non-negative-integer" (the typed ones erase and check).
std::string_view to_string(const PathCompare& compare);
std::optional<PathCompare> parse_path_compare(std::string_view text);
// True when `value` is of the type `check` asks for (always true for none).
bool satisfies(ValueCheck check, const boost::json::value& value);
std::string_view to_string(ValueCheck check);

class Registry {
 public:
  // id, params.commandId, params.turnId, params.itemId, result.session.sessionId.
  static Registry builtin();

  // Adds the paths of a JSON array file, or the `paths` of a file of the corpus file's shape
  // (corpus_file.hpp) with their comparisons; errors name the file and the bad entry.
  Result<void> extend_from_file(const std::filesystem::path& file);
  Result<void> add(std::string_view path);
  // Adds `path` (if new) and sets how it is compared.
  Result<void> declare(std::string_view path, PathCompare compare);

  bool contains(std::string_view path) const;
  const std::vector<JsonPath>& paths() const { return paths_; }
  // How `path` is compared (unify unless a declaration said otherwise).
  PathCompare compare_of(std::string_view path) const;
  // True when a declaration (not the built-in list, not a bare array entry) set the comparison.
  bool compare_declared(std::string_view path) const;

  // Adds `over`'s paths; the comparisons `over` declared replace these (an explicit --registry
  // overrides the corpus file).
  void merge(const Registry& over);

  // The corpus file a path missing from the registry is to be added to: the one found for the
  // scenario, or where one would be created (empty before resolve_registry).
  const std::filesystem::path& add_to() const { return add_to_; }
  void set_add_to(std::filesystem::path file) { add_to_ = std::move(file); }

 private:
  std::size_t index_of(std::string_view path) const;

  std::vector<JsonPath> paths_;
  std::vector<PathCompare> compares_;
  std::vector<bool> declared_;
  std::filesystem::path add_to_;
};

}  // namespace msptk
