#include "msptk/maintenance/corpus_root.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace msptk::maintenance {

namespace fs = std::filesystem;

std::vector<fs::path> CorpusRoot::scenarios() const {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(transcripts(), ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ignored;
    if (it->is_directory(ignored) && fs::exists(it->path() / "manifest.json", ignored)) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<CorpusRoot> locate_corpus_root(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Error::usage(fmt::format("--root {}: not a folder (a source tree holding schema/msp/, or a schema/msp "
                                    "folder)",
                                    dir.string()));
  CorpusRoot root;
  if (fs::is_directory(dir / "schema" / "msp" / "transcripts", ec)) {
    root.msp = dir / "schema" / "msp";
    root.tree = dir;
    root.prefix = "schema/msp/";
    return root;
  }
  if (fs::is_directory(dir / "transcripts", ec)) {
    root.msp = dir;
    root.tree = dir;
    root.prefix = "";
    return root;
  }
  return Error::usage(fmt::format("--root {}: neither {} nor {} is a folder (a source tree holding schema/msp/, or a "
                                  "schema/msp folder with transcripts/, stable/, changelog/)",
                                  dir.string(), (dir / "schema/msp/transcripts").string(),
                                  (dir / "transcripts").string()));
}

}  // namespace msptk::maintenance
