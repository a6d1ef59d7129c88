#include "msptk/script/command_id.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace msptk::script {

CommandIdMinter::CommandIdMinter(std::int64_t seed, std::int64_t clock_start_ms)
    : state_(static_cast<std::uint64_t>(seed)), clock_ms_(static_cast<std::uint64_t>(clock_start_ms)) {}

std::optional<std::string> clock_start_problem(std::int64_t clock_start_ms, std::size_t ids) {
  if (ids == 0) return std::nullopt;
  const bool fits = clock_start_ms >= 0 && clock_start_ms <= kMaxCommandIdTimeMs &&
                    ids - 1 <= static_cast<std::uint64_t>(kMaxCommandIdTimeMs - clock_start_ms);
  if (fits) return std::nullopt;
  return fmt::format("--clock-start-ms {}: the script mints {} commandId{} (UUIDv7) whose 48-bit time is the clock "
                     "start plus the ids minted before, so it must be from 0 to {}",
                     clock_start_ms, ids, ids == 1 ? "" : "s",
                     kMaxCommandIdTimeMs - static_cast<std::int64_t>(std::min<std::size_t>(ids - 1, kMaxCommandIdTimeMs)));
}

std::uint64_t CommandIdMinter::random() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string CommandIdMinter::next() {
  const std::uint64_t ms = (clock_ms_++) & 0xFFFFFFFFFFFFULL;
  const std::uint64_t r = random();
  const std::uint64_t rand_a = r & 0xFFFULL;                      // 12 bits
  const std::uint64_t rand_b = (r >> 12) | (random() << 52);      // 62 bits used
  const std::uint64_t hi = (ms << 16) | (0x7ULL << 12) | rand_a;  // time, version 7, rand_a
  const std::uint64_t lo = (0x2ULL << 62) | (rand_b & 0x3FFFFFFFFFFFFFFFULL);  // variant 10, rand_b
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF, hi & 0xFFFF, lo >> 48,
                     lo & 0xFFFFFFFFFFFFULL);
}

}  // namespace msptk::script
