// msptk's entry point: everything lives in the libraries and in one file per verb.
// Anything thrown in the main thread is caught by run_guarded (cli/app.cpp); the terminate
// handler covers the rest (an exception escaping another thread, a noexcept boundary): it
// prints "msptk: error: …" and exits 3 instead of dying by SIGABRT.
#include "verbs.hpp"

#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>
#include <unistd.h>

namespace {

[[noreturn]] void on_terminate() {
  const char* what = "an unknown failure";
  std::string text;
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      what = "out of memory (an input needs more memory than msptk may use)";
    } catch (const std::exception& ex) {
      text = ex.what();
      what = text.c_str();
    } catch (...) {
    }
  }
  std::cout.flush();
  std::cerr << "msptk: error: internal failure: " << what << "\n";
  std::cerr.flush();
  std::_Exit(3);
}

}  // namespace

int main(int argc, char** argv) {
  std::set_terminate(&on_terminate);
  return msptk::cli::run(argc, argv, msptk::cli::Streams{std::cout, std::cerr});
}
