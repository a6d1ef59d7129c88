// The host a check replays scenarios against, as an argv per scenario.
//
// `--host 'CMD ARGS'` is one string split into words the way a POSIX shell splits a simple
// command, without running a shell: blanks separate words; 'single quotes' keep everything
// literally; "double quotes" keep everything except that a backslash escapes ", \, $ and `;
// outside quotes a backslash escapes the next character. There is no variable, glob, tilde or
// command expansion, no redirection and no pipeline: `$HOME` stays `$HOME`. The placeholder
// `{scenario}` in any word is replaced with the scenario folder (replay itself expands
// `{frameLimitBytes}`, `{idSeed}` and `{clockStartMs}` from the manifest).
//
// Without --host, the host is the embedded canned host: this msptk binary (found through
// /proc/self/exe) run as `msptk serve-fixture --transcript SCENARIO`.
#pragma once

#include "msptk/transcript/error.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::check {

// Errors (`usage`): an unterminated quote, a trailing backslash, no word at all.
Result<std::vector<std::string>> split_command(std::string_view command);

// Replaces every "{scenario}" in the words with `scenario`.
std::vector<std::string> expand_scenario(std::vector<std::string> argv, const std::filesystem::path& scenario);

// The running msptk binary (/proc/self/exe); an `unreadable` error when it cannot be found.
Result<std::filesystem::path> self_executable();

// The words as one POSIX shell command line, each word single-quoted ('it'\''s'), so that
// `sh -c LINE` (or split_command) gives back exactly `words`.
std::string shell_quote(const std::vector<std::string>& words);

// Replaces every "{host}" in the words with `host_line` (check --client: the canned host's
// command line, shell_quote'd).
std::vector<std::string> expand_host(std::vector<std::string> argv, const std::string& host_line);

// {self, "serve-fixture", "--transcript", scenario}.
std::vector<std::string> canned_host_argv(const std::filesystem::path& self, const std::filesystem::path& scenario);

}  // namespace msptk::check
