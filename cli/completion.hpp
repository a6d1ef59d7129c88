// Shell completion for msptk, generated from the command line's own definition.
//
// `describe_command_line` reads the CLI11 tree that `run` builds (every verb, every option with
// its names, whether it takes a value, the choices an `IsMember` check allows, positional
// arguments) into a `CommandLineSpec`, plain data; `render_bash` and `render_zsh` turn that data
// into a completion script. A new verb or option is therefore completed without a second edit:
// `msptk completions bash|zsh` prints the script, and the build writes both into the install
// tree (share/bash-completion/completions/msptk, share/zsh/vendor-completions/_msptk).
//
// What is completed: verbs after `msptk`; a verb's options after `-` (also after a flag, which
// takes no value); an option's value from its choices (`--format text|json`), else as a path;
// positional arguments from their choices (`completions bash|zsh`), else as paths; after `--`
// (record's, replay's and regen's HOST) commands and paths, as the shell completes them by
// default. Paths offer what msptk reads first: scenario folders (holding manifest.json) and
// `.ndjson` files, then the other folders and files.
#pragma once

#include <CLI/CLI.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace msptk::cli {

struct OptionSpec {
  std::vector<std::string> names;    // as typed: "--format", "-j"
  std::string description;           // the help text's first sentence
  bool takes_value = false;
  std::vector<std::string> choices;  // from an IsMember check; empty: a path or free text
};

struct VerbSpec {
  std::string name;
  std::string description;
  std::vector<OptionSpec> options;
  bool positionals = false;          // takes PATH... arguments
  std::vector<std::string> positional_choices;  // from an IsMember check (completions SHELL); empty: paths
  std::string positional_name;       // "shell": how zsh names the positional with choices
  bool takes_command = false;        // a `-- HOST [ARGS...]` tail
};

struct CommandLineSpec {
  std::string program;               // "msptk"
  std::vector<OptionSpec> options;   // the program's own (--help, --version)
  std::vector<VerbSpec> verbs;
};

CommandLineSpec describe_command_line(const CLI::App& app);

void render_bash(std::ostream& out, const CommandLineSpec& spec);
void render_zsh(std::ostream& out, const CommandLineSpec& spec);

}  // namespace msptk::cli
