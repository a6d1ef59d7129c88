// The manifest.* rules: the problems parse_manifest finds in manifest.json alone, plus those
// that need context (the folder name, the transcript's length, the Registry). Internal to the
// validator; findings point at the line of the member concerned.
#pragma once

#include "msptk/normalizer/registry.hpp"
#include "msptk/transcript/manifest.hpp"
#include "msptk/validator/report.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::detail {

struct ManifestContext {
  std::string file;                           // manifest.json as the user's path spells it
  std::string_view text;                      // its bytes, for line numbers
  const boost::json::value* json = nullptr;   // its parsed value
  const ManifestParse* parse = nullptr;
  std::string folder_name;                    // the scenario folder's name
  std::optional<std::size_t> transcript_lines;  // unknown when the transcript was unreadable
  const Registry* registry = nullptr;
};

void check_manifest(const ManifestContext& ctx, std::vector<Finding>& out);

}  // namespace msptk::detail
