// The Registry is the list of paths that a manifest may declare as nondeterministic
// (MATCHING.md §4: "undeclared normalization is refused"). It starts with the five paths the
// public corpus uses and grows only by explicit configuration (`--registry FILE`, a JSON array
// of path strings), never silently.
#pragma once

#include "msptk/normalizer/path.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace msptk {

class Registry {
 public:
  // id, params.commandId, params.turnId, params.itemId, result.session.sessionId.
  static Registry builtin();

  // Adds the paths of a JSON array file; errors name the file and the bad entry.
  Result<void> extend_from_file(const std::filesystem::path& file);
  Result<void> add(std::string_view path);

  bool contains(std::string_view path) const;
  const std::vector<JsonPath>& paths() const { return paths_; }

 private:
  std::vector<JsonPath> paths_;
};

}  // namespace msptk
