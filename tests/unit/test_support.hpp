// Shared helpers for the unit tests: where the public corpus is, a skip when it is absent, and
// scratch folders that clean up after themselves.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace msptk::test {

inline std::filesystem::path source_dir() { return MSPTK_SOURCE_DIR; }
inline std::filesystem::path shared_corpus() { return MSPTK_SHARED_CORPUS; }
inline std::filesystem::path shared_transcripts() { return shared_corpus() / "transcripts"; }

// Skips the current test with a clear message when ../shared/msp-corpus is not there
// (a user's fresh clone); CI has it.
#define MSPTK_REQUIRE_SHARED_CORPUS()                                                          \
  do {                                                                                         \
    if (!std::filesystem::is_directory(::msptk::test::shared_transcripts()))                   \
      GTEST_SKIP() << "public MSP corpus not found at " << ::msptk::test::shared_transcripts() \
                   << " (tests that read it are skipped)";                                     \
  } while (0)

// Every scenario folder of the public corpus, sorted.
inline std::vector<std::filesystem::path> corpus_scenarios() {
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::is_directory(shared_transcripts())) return out;
  for (const auto& e : std::filesystem::directory_iterator(shared_transcripts()))
    if (e.is_directory()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Every *.ndjson file of the public corpus (transcripts and legs).
inline std::vector<std::filesystem::path> corpus_ndjson_files() {
  std::vector<std::filesystem::path> out;
  for (const auto& dir : corpus_scenarios())
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".ndjson") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// A fresh scratch folder under the system temp folder, removed on destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "msptk-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace msptk::test
