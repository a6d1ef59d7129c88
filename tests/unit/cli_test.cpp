#include "verbs.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <new>
#include <sstream>
#include <stdexcept>

namespace msptk::cli {
namespace {

TEST(Cli, AnythingThrownByAVerbIsExit3WithAMessage) {
  auto run = [](Runner runner) {
    std::ostringstream out, err;
    const int code = run_guarded(runner, Streams{out, err});
    return std::pair{code, err.str()};
  };
  EXPECT_EQ(run([](Streams) -> int { throw std::bad_alloc(); }),
            (std::pair{3, std::string("msptk: error: out of memory (an input needs more memory than msptk may use)\n")}));
  EXPECT_EQ(run([](Streams) -> int { throw std::runtime_error("boom"); }),
            (std::pair{3, std::string("msptk: error: internal failure: boom\n")}));
  EXPECT_EQ(run([](Streams) -> int {
              throw std::filesystem::filesystem_error("cannot create", std::filesystem::path(""),
                                                      std::make_error_code(std::errc::no_such_file_or_directory));
            }).first,
            3);
  EXPECT_EQ(run([](Streams) -> int { throw 42; }),
            (std::pair{3, std::string("msptk: error: internal failure (an unknown exception)\n")}));
  EXPECT_EQ(run([](Streams) { return 1; }), (std::pair{1, std::string()}));
}

}  // namespace
}  // namespace msptk::cli
