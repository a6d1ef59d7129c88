// The terminal a verb writes to: whether its output is one, and whether to colour it. One rule
// for every verb with `--color auto|always|never` (diff, show): auto colours only stdout on a
// terminal, and never when NO_COLOR is set (https://no-color.org).
#pragma once

#include <ostream>
#include <string>

namespace msptk::cli {

// Whether `out` is the process's stdout and that is a terminal.
bool on_terminal(const std::ostream& out);

// `--color MODE` ("auto", "always", "never") for output to `out`.
bool use_color(const std::string& mode, const std::ostream& out);

}  // namespace msptk::cli
