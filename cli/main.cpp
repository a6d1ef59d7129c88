// msptk's entry point: everything lives in the libraries and in one file per verb.
// Anything thrown in the main thread is caught by run_guarded (cli/app.cpp); the terminate
// handler covers the rest (an exception escaping another thread, a noexcept boundary): it
// prints "msptk: error: …" and exits 3 instead of dying by SIGABRT.
//
// Memory: every block of 1 MiB or more (a multi-MiB frame, the buffer a long line is read
// into) is its own mapping, returned to the system when freed. glibc's default threshold
// rises after the first such block is freed, and later large frames then come from the heap,
// whose freed space stays resident: the peak RSS of a long transcript with several large
// frames would grow with how they happen to be laid out (issue 12: memory independent of
// length). Blocks under the threshold, i.e. almost every allocation, are unaffected.
#include "verbs.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

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
#if defined(__GLIBC__)
  ::mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
  return msptk::cli::run(argc, argv, msptk::cli::Streams{std::cout, std::cerr});
}
