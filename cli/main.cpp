// msptk's entry point: everything lives in the libraries and in one file per verb.
#include "verbs.hpp"

#include <iostream>

int main(int argc, char** argv) {
  return msptk::cli::run(argc, argv, msptk::cli::Streams{std::cout, std::cerr});
}
