#include "msptk/transcript/error.hpp"

#include <stdexcept>

namespace msptk {

Error Error::usage(std::string message) {
  return Error{ErrorKind::usage, std::move(message), {}, 0, {}};
}

Error Error::unreadable(std::string file, std::string message) {
  return Error{ErrorKind::unreadable, std::move(message), std::move(file), 0, {}};
}

Error Error::malformed(std::string file, std::size_t line, std::string rule, std::string message) {
  return Error{ErrorKind::malformed, std::move(message), std::move(file), line, std::move(rule)};
}

std::string Error::render() const {
  std::string out;
  if (!file.empty()) {
    out += file;
    // Appended piece by piece: `":" + std::to_string(line)` makes GCC 12 at -O3 (`make package`)
    // warn of an overlapping memcpy that cannot happen (-Wrestrict, GCC bug 105329).
    if (line > 0) {
      out += ':';
      out += std::to_string(line);
    }
    out += ": ";
  }
  out += message;
  if (!rule.empty()) out += " [" + rule + "]";
  return out;
}

int exit_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage: return 2;
    case ErrorKind::conformance: return 1;
    default: return 3;
  }
}

void throw_exception_from_error(const Error& error, const boost::source_location&) {
  throw std::runtime_error(error.render());
}

}  // namespace msptk
