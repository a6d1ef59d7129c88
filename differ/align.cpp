#include "msptk/differ/align.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>

namespace msptk {

namespace {

// Myers on a[0..n) and b[0..m), appending matches (offset by base_a/base_b) in increasing order.
void myers(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b, std::size_t base_a,
           std::size_t base_b, std::size_t max_edits, std::vector<Match>& out) {
  const long n = static_cast<long>(a.size());
  const long m = static_cast<long>(b.size());
  const long limit = std::min<long>(n + m, static_cast<long>(max_edits));
  const long off = limit + 1;
  if (n > INT32_MAX || m > INT32_MAX) return;  // positions are kept as 32 bits: leave it unmatched
  std::vector<long> v(static_cast<std::size_t>(2 * limit + 3), 0);
  // The furthest x on each diagonal k = -d, -d+2, ..., d after step d, at trace[d(d+1)/2 + (k+d)/2]:
  // the d+1 diagonals a step reaches, 4 bytes each (2048 edits: 8 MiB).
  std::vector<std::int32_t> trace;
  auto step = [](long d) { return static_cast<std::size_t>(d * (d + 1) / 2); };
  long found = -1;
  for (long d = 0; d <= limit && found < 0; ++d) {
    for (long k = -d; k <= d; k += 2) {
      long x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1] : v[off + k - 1] + 1;
      long y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      v[off + k] = x;
      trace.push_back(static_cast<std::int32_t>(x));
      if (x >= n && y >= m) found = d;
    }
  }
  if (found < 0) return;  // too far apart: leave the middle unmatched

  std::vector<Match> reversed;
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
    while (x > start_x && y > start_y) {
      --x, --y;
      reversed.emplace_back(base_a + static_cast<std::size_t>(x), base_b + static_cast<std::size_t>(y));
    }
    x = prev_x;
    y = prev_y;
  }
  while (x > 0 && y > 0) {
    --x, --y;
    reversed.emplace_back(base_a + static_cast<std::size_t>(x), base_b + static_cast<std::size_t>(y));
  }
  out.insert(out.end(), reversed.rbegin(), reversed.rend());
}

}  // namespace

std::vector<Match> longest_common_subsequence(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                                              std::size_t max_edits) {
  std::vector<Match> out;
  std::size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
    ++suffix;
  for (std::size_t i = 0; i < prefix; ++i) out.emplace_back(i, i);
  const std::size_t na = a.size() - prefix - suffix;
  const std::size_t nb = b.size() - prefix - suffix;
  if (na > 0 && nb > 0) myers(a.subspan(prefix, na), b.subspan(prefix, nb), prefix, prefix, max_edits, out);
  for (std::size_t i = suffix; i > 0; --i) out.emplace_back(a.size() - i, b.size() - i);
  return out;
}

}  // namespace msptk
