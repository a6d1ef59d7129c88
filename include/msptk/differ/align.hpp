// Alignment of two sequences of keys: the longest common subsequence, found with Myers'
// O((N+M)·D) greedy algorithm (D = number of insertions and deletions) after trimming the
// common prefix and suffix. Equal transcripts align in linear time; a handful of missing or
// extra frames cost a handful of diagonals.
//
// The matches are handed to a callback in increasing order rather than collected, and the keys
// are read through any indexable sequence (a span, the differ's ChunkedVector of keys, keys
// derived on the fly) or pairs compared by a predicate (for_each_common_by: the differ answers
// some pairs without their keys), so that aligning two million frames a side holds no copy of
// the keys and no list of matches: only the edit trace (O(D²)) and the snakes of the path found
// (O(D)).
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace msptk {

using Match = std::pair<std::size_t, std::size_t>;  // (index in a, index in b)

namespace detail {

// Myers on a[0..n) and b[0..m) (`equal(i, j)`: a[i] and b[j] are the same), calling on_match(x, y) for each
// match in increasing order. Nothing is matched when the edit distance exceeds `max_edits` or a
// side has more than INT32_MAX keys (positions are kept as 32 bits).
template <class Equal, class OnMatch>
void myers(const Equal& equal, std::size_t size_a, std::size_t size_b, std::size_t max_edits, OnMatch&& on_match) {
  if (size_a > INT32_MAX || size_b > INT32_MAX) return;
  const long n = static_cast<long>(size_a);
  const long m = static_cast<long>(size_b);
  const long limit = std::min<long>(n + m, static_cast<long>(max_edits));
  const long off = limit + 1;
  std::vector<long> v(static_cast<std::size_t>(2 * limit + 3), 0);
  // The furthest x on each diagonal k = -d, -d+2, ..., d after step d, at trace[d(d+1)/2 + (k+d)/2]:
  // the d+1 diagonals a step reaches, 4 bytes each (2048 edits: 8 MiB).
  std::vector<std::int32_t> trace;
  auto step = [](long d) { return static_cast<std::size_t>(d * (d + 1) / 2); };
  // Room for every step up front: growing it by doubling would copy (and fault) it over and
  // over; pages of the reservation that no step reaches are never touched.
  trace.reserve(step(limit + 1));
  long found = -1;
  for (long d = 0; d <= limit && found < 0; ++d) {
    for (long k = -d; k <= d; k += 2) {
      long x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1] : v[off + k - 1] + 1;
      long y = x - k;
      while (x < n && y < m && equal(static_cast<std::size_t>(x), static_cast<std::size_t>(y))) ++x, ++y;
      v[off + k] = x;
      trace.push_back(static_cast<std::int32_t>(x));
      if (x >= n && y >= m) found = d;
    }
  }
  if (found < 0) return;  // too far apart: leave the middle unmatched

  // The snakes (diagonal runs of matches) of the path, from the end back: at most found + 1.
  struct Snake {
    long x, y, length;
  };
  std::vector<Snake> snakes;
  long x = n, y = m;
  for (long d = found; d > 0; --d) {
    const std::size_t prev = step(d - 1);
    auto at = [&](long k) { return static_cast<long>(trace[prev + static_cast<std::size_t>((k + d - 1) / 2)]); };
    const long k = x - y;
    const long prev_k = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1;
    const long prev_x = at(prev_k);
    const long prev_y = prev_x - prev_k;
    const long start_x = prev_k == k + 1 ? prev_x : prev_x + 1;  // where the snake after the edit began
    const long start_y = start_x - k;
    if (x > start_x) snakes.push_back(Snake{start_x, start_y, x - start_x});
    x = prev_x;
    y = prev_y;
  }
  if (x > 0) snakes.push_back(Snake{0, 0, x});
  trace = {};
  for (auto s = snakes.rbegin(); s != snakes.rend(); ++s)
    for (long t = 0; t < s->length; ++t)
      on_match(static_cast<std::size_t>(s->x + t), static_cast<std::size_t>(s->y + t));
}

}  // namespace detail

// Calls on_match(i, j) for each pair of a longest common subsequence of a[0..size_a) and
// b[0..size_b), increasing in both, where `equal(i, j)` says whether a[i] and b[j] are the same
// (a caller whose keys are costly to know may answer some pairs without them). When the edit
// distance of the untrimmed middle exceeds `max_edits`, the middle is left unmatched (bounded
// time and memory: O(max_edits²), 4 bytes per diagonal and step: 8 MiB for the default).
template <class Equal, class OnMatch>
void for_each_common_by(const Equal& equal, std::size_t size_a, std::size_t size_b, OnMatch&& on_match,
                        std::size_t max_edits = 2048) {
  std::size_t prefix = 0;
  while (prefix < size_a && prefix < size_b && equal(prefix, prefix)) ++prefix;
  std::size_t suffix = 0;
  while (suffix < size_a - prefix && suffix < size_b - prefix && equal(size_a - 1 - suffix, size_b - 1 - suffix))
    ++suffix;
  for (std::size_t i = 0; i < prefix; ++i) on_match(i, i);
  const std::size_t na = size_a - prefix - suffix;
  const std::size_t nb = size_b - prefix - suffix;
  if (na > 0 && nb > 0) {
    detail::myers([&](std::size_t i, std::size_t j) { return equal(prefix + i, prefix + j); }, na, nb, max_edits,
                  [&](std::size_t i, std::size_t j) { on_match(prefix + i, prefix + j); });
  }
  for (std::size_t i = suffix; i > 0; --i) on_match(size_a - i, size_b - i);
}

// The same over keys: `at_a(i)` and `at_b(j)` give the keys (std::uint64_t), equal keys are the
// same.
template <class KeyA, class KeyB, class OnMatch>
void for_each_common(const KeyA& at_a, std::size_t size_a, const KeyB& at_b, std::size_t size_b,
                     OnMatch&& on_match, std::size_t max_edits = 2048) {
  for_each_common_by([&](std::size_t i, std::size_t j) { return at_a(i) == at_b(j); }, size_a, size_b,
                     std::forward<OnMatch>(on_match), max_edits);
}

// The matched index pairs of for_each_common over two spans, collected.
std::vector<Match> longest_common_subsequence(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                                              std::size_t max_edits = 2048);

}  // namespace msptk
