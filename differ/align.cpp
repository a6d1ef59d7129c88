#include "msptk/differ/align.hpp"

namespace msptk {

std::vector<Match> longest_common_subsequence(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                                              std::size_t max_edits) {
  std::vector<Match> out;
  for_each_common([&](std::size_t i) { return a[i]; }, a.size(), [&](std::size_t j) { return b[j]; }, b.size(),
                  [&](std::size_t i, std::size_t j) { out.emplace_back(i, j); }, max_edits);
  return out;
}

}  // namespace msptk
