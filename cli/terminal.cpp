#include "terminal.hpp"

#include <unistd.h>

#include <cstdlib>
#include <iostream>

namespace msptk::cli {

bool on_terminal(const std::ostream& out) { return &out == &std::cout && ::isatty(STDOUT_FILENO); }

bool use_color(const std::string& mode, const std::ostream& out) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  return on_terminal(out);
}

}  // namespace msptk::cli
