// Hostile input to the offline verbs (issue 10, defects 3 and 6): a line too large to hold is a
// clear exit-3 error naming the file and the line, never an abort; deep nesting is accepted.
#include "e2e_support.hpp"

#include <fstream>

namespace msptk::e2e {
namespace {

#if defined(__SANITIZE_ADDRESS__)
#define MSPTK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MSPTK_ASAN 1
#endif
#endif

const char* const kInitialize =
    R"({"dir":"client","raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"clientInfo\":{\"name\":\"c\",\"version\":\"0\"}}}"})";

// A transcript whose line 2 is a client frame of `bytes` bytes.
std::filesystem::path write_big_line(const test::TempDir& dir, std::size_t bytes) {
  const std::filesystem::path path = dir / "transcript.ndjson";
  std::ofstream out(path, std::ios::binary);
  out << kInitialize << "\n{\"dir\":\"client\",\"raw\":\"";
  const std::string block(1 << 20, 'x');
  for (std::size_t left = bytes; left > 0;) {
    const std::size_t n = std::min(left, block.size());
    out.write(block.data(), static_cast<std::streamsize>(n));
    left -= n;
  }
  out << "\"}\n" << kInitialize << "\n";
  return path;
}

CommandRun shell(const std::string& script) { return run_command({"/bin/sh", "-c", script}, std::chrono::seconds(60)); }

TEST(HostileInput, ALineOverTheCapIsAnExit3ErrorNamingFileAndLine) {
  test::TempDir dir;
  const auto path = write_big_line(dir, 5000);
  for (const char* verb : {"validate", "normalize", "diff"}) {
    std::string cmd = "MSPTK_MAX_LINE_BYTES=1000 '" + msptk_bin() + "' " + verb + " '" + path.string() + "'";
    if (std::string(verb) == "diff") cmd += " '" + path.string() + "'";
    CommandRun run = shell(cmd);
    EXPECT_EQ(run.exit.code, 3) << verb << ": " << run.err;
    EXPECT_NE(run.err.find("msptk: error: " + path.string() + ":2: line is 5025 bytes, more than msptk holds in memory (1000 bytes"),
              std::string::npos)
        << verb << ": " << run.err;
  }
}

TEST(HostileInput, ALineBiggerThanTheMemoryMsptkMayUseIsAnExit3ErrorNotAnAbort) {
#ifdef MSPTK_ASAN
  GTEST_SKIP() << "ulimit -v cannot be used under AddressSanitizer (it reserves terabytes of address space)";
#else
  test::TempDir dir;
  const auto path = write_big_line(dir, std::size_t{96} << 20);
  for (const char* verb : {"validate", "normalize", "diff"}) {
    std::string cmd = "ulimit -v 60000; '" + msptk_bin() + "' " + verb + " '" + path.string() + "'";
    if (std::string(verb) == "diff") cmd += " '" + path.string() + "'";
    cmd += " >/dev/null";
    CommandRun run = shell(cmd);
    EXPECT_FALSE(run.exit.signaled()) << verb << " died by signal " << run.exit.signal;
    EXPECT_EQ(run.exit.code, 3) << verb << ": " << run.err;
    EXPECT_NE(run.err.find(path.string() + ":2: line is "), std::string::npos) << verb << ": " << run.err;
  }
#endif
}

}  // namespace
}  // namespace msptk::e2e
