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
Runner setup_review(CLI::App& app);

// Runs a verb's runner, mapping anything thrown to "msptk: error: …" on err and exit 3.
int run_guarded(const Runner& runner, Streams io);

// Runs the command line; main() only calls this.
int run(int argc, const char* const* argv, Streams io);

}  // namespace msptk::cli
