// Option values checked where the command line is parsed, before a verb runs: before any file is
// read, any host or client spawned. A bad value is a CLI11 ValidationError ("--width: ...": the
// option named), which the dispatcher reports as a usage error (exit 2).
//
// Each check is a CLI11 Validator of one KIND, named "msptk:KIND" so a test (and the completion
// generator) can tell from the command line's definition what an option takes:
//   number>=MIN  an integer in [MIN, MAX] written as decimal digits only: no sign, no space, no
//                fraction, nothing beyond int64 (a negative value is never wrapped to a huge one)
//   text         any text but the empty one
//   file         a file to read or write: not empty, not an existing folder
//   folder       a folder to read or create: not empty, not an existing file
//   path         a file or a folder: not empty
// Options with an IsMember check (choices) keep it: it refuses the empty value too.
// finish_options (called by the dispatcher once a verb has declared its options) gives every
// value option that has no check the `text` check, so an option added later is never unchecked,
// and makes everything after the first `--` belong to a verb's `-- HOST` (or client) command:
// a repeatable option there takes one value per occurrence, so it cannot swallow the `--`.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <limits>
#include <string>

namespace msptk::cli {

CLI::Validator number_check(std::int64_t min, std::int64_t max = std::numeric_limits<std::int64_t>::max());
CLI::Validator text_check();
CLI::Validator file_check();
CLI::Validator folder_check();
CLI::Validator path_check();

// Whether `option` takes a value (a flag takes none).
bool takes_value(const CLI::Option& option);

// The kind of value `option` takes: "number>=0", "number>=1", "text", "file", "folder", "path",
// "choice" (an IsMember check), "" for a flag or an option with another check.
std::string value_kind(const CLI::Option& option);

// See above: run once a verb's subcommand has all its options.
void finish_options(CLI::App& sub);

}  // namespace msptk::cli
