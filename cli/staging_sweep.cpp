#include "staging_sweep.hpp"

#include "msptk/transcript/folder_rewrite.hpp"

#include <set>

namespace msptk::cli {

void sweep_staging_leftovers(const std::vector<std::string>& paths, Streams io) {
  std::vector<std::filesystem::path> places;
  std::set<std::filesystem::path> seen;
  for (const std::string& path : paths)
    for (std::filesystem::path& place : staging_places(path.empty() ? std::string(".") : path))
      if (seen.insert(std::filesystem::weakly_canonical(place)).second) places.push_back(std::move(place));
  io.err << describe_leftovers(sweep_staging(places)) << std::flush;
}

}  // namespace msptk::cli
