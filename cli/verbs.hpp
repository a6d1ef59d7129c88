// The verbs of the msptk command line. Each verb lives in its own file (cli/<verb>.cpp) with an
// options struct, a setup function that declares its subcommand and binds flags, and a run
// function that calls the library and renders the result. setup_<verb> returns the runner the
// dispatcher calls when that subcommand was given; the runner returns the process exit code
// (0 ok, 1 conformance failure, 2 usage, 3 infrastructure).
#pragma once

#include "msptk/transcript/error.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace msptk::cli {

struct Streams {
  std::ostream& out;
  std::ostream& err;
};

using Runner = std::function<int(Streams)>;

Runner setup_diff(CLI::App& app);
Runner setup_normalize(CLI::App& app);

// Prints "msptk: error: <message>" to err and returns the exit code of the error's kind.
int report_error(Streams io, const Error& error);

// The verbs (one file each).
Runner setup_validate(CLI::App& app);
Runner setup_record(CLI::App& app);
Runner setup_serve_fixture(CLI::App& app);
Runner setup_replay(CLI::App& app);
Runner setup_check(CLI::App& app);
Runner setup_wire_log(CLI::App& app);
Runner setup_coverage(CLI::App& app);
Runner setup_show(CLI::App& app);
Runner setup_review(CLI::App& app);

// Runs a verb's runner, mapping anything thrown to "msptk: error: …" on err and exit 3.
int run_guarded(const Runner& runner, Streams io);
Runner setup_staleness(CLI::App& app);
Runner setup_repin(CLI::App& app);
Runner setup_regen(CLI::App& app);
Runner setup_shrink(CLI::App& app);
Runner setup_completions(CLI::App& app);  // needs the whole command line: added last

// Options shared by the corpus maintenance verbs (cli/staleness.cpp).
void add_root_option(CLI::App& sub, std::string& root);
void add_bundles_option(CLI::App& sub, std::vector<std::string>& bundles);

// Declares every verb of the msptk command line on `app` (each verb's options checked and
// finished by option_checks.hpp); the runner of each verb's subcommand, in --help's order.
std::vector<std::pair<CLI::App*, Runner>> declare_verbs(CLI::App& app);

// Runs the command line; main() only calls this. Invoked as `muse-conformance` (argv[0]'s
// basename) or as `msptk conformance ...`, it runs run_conformance.
int run(int argc, const char* const* argv, Streams io);

// The muse-conformance command line (cli/conformance.cpp); `name` is how it was invoked.
int run_conformance(int argc, const char* const* argv, Streams io, const std::string& name);

// The msptk command line (without argv[0]) a muse-conformance command line maps onto. When
// `msptk_args` is empty nothing is to run and `exit_code` is final (help printed: 0; a usage
// error reported on io.err: 2).
struct ConformanceCommand {
  int exit_code = 0;
  std::vector<std::string> msptk_args;
};
ConformanceCommand translate_conformance(int argc, const char* const* argv, Streams io, const std::string& name);

}  // namespace msptk::cli
