// Alignment of two sequences of keys: the longest common subsequence, found with Myers'
// O((N+M)·D) greedy algorithm (D = number of insertions and deletions) after trimming the
// common prefix and suffix. Equal transcripts align in linear time; a handful of missing or
// extra frames cost a handful of diagonals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace msptk {

using Match = std::pair<std::size_t, std::size_t>;  // (index in a, index in b)

// The matched index pairs, increasing in both. When the edit distance of the untrimmed middle
// exceeds `max_edits`, the middle is left unmatched (bounded time and memory: O(max_edits²),
// 4 bytes per diagonal and step: 8 MiB for the default).
std::vector<Match> longest_common_subsequence(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                                              std::size_t max_edits = 2048);

}  // namespace msptk
