// Small JSON and file helpers shared by every module: reading a JSON file with errors that
// name the file and line, indented output, and atomic file replacement.
#pragma once

#include "msptk/transcript/error.hpp"

#include <boost/json/value.hpp>

#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>

namespace msptk {

// Reads a whole (small) file. Errors are `unreadable` and name the file.
Result<std::string> read_file(const std::filesystem::path& path);

// Parses a JSON document; a syntax error names the file and the line it is on.
Result<boost::json::value> parse_json_file(const std::filesystem::path& path);
// The same for bytes already read from `file`.
Result<boost::json::value> parse_json_text(std::string_view text, const std::string& file);

// Writes `value` indented by two spaces per level, members in their stored order.
void write_pretty(std::ostream& out, const boost::json::value& value, int indent = 0);
std::string pretty(const boost::json::value& value);

// Replaces `path` with `contents` atomically: a temporary file in the same folder, fsync,
// then rename. The file gets `perms`.
Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view contents,
                               std::filesystem::perms perms);

}  // namespace msptk
