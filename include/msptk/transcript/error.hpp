// msptk::Error is the one error type of the library: a kind that maps onto the CLI's exit-code
// contract, a human message, and where it happened (file, 1-based line, stable rule id).
// Functions that can fail return msptk::Result<T> (boost::system::result<T, Error>); nothing in
// the library throws across its API, and nothing prints: the CLI renders errors.
#pragma once

#include <boost/system/result.hpp>

#include <cstddef>
#include <string>

namespace msptk {

enum class ErrorKind {
  usage,        // a bad option or argument (exit 2)
  unreadable,   // a file or folder that cannot be opened or read (exit 3)
  malformed,    // input that cannot be understood: bad JSON, bad line (exit 3)
  spawn,        // a process that could not be started (exit 3)
  peer,         // a peer that died or misbehaved at the transport level (exit 3)
  conformance,  // a divergence or rule violation (exit 1)
};

struct Error {
  ErrorKind kind = ErrorKind::malformed;
  std::string message;
  std::string file;       // empty when not about a file
  std::size_t line = 0;   // 1-based; 0 when not about a line
  std::string rule;       // stable rule id such as "file.members"; may be empty

  static Error usage(std::string message);
  static Error unreadable(std::string file, std::string message);
  static Error malformed(std::string file, std::size_t line, std::string rule, std::string message);

  // "FILE:LINE: message [rule]", leaving out what is unknown.
  std::string render() const;
};

// The process exit code the CLI uses for an error of this kind (2 usage, 1 conformance, else 3).
int exit_code(ErrorKind kind);

template <class T>
using Result = boost::system::result<T, Error>;

// Lets Result<T>::value() throw on an error (used only in tests and at the CLI boundary).
[[noreturn]] void throw_exception_from_error(const Error& error, const boost::source_location& loc);

}  // namespace msptk
