// The CommandIdMinter gives a script's commands their params.commandId when the script leaves it
// out: UUIDv7 strings (RFC 9562) made from a seed, so the same script with the same seed mints the
// same ids. The 48-bit timestamp is the pinned clock start (--clock-start-ms) plus the number of
// ids minted before, so ids sort in minting order; the 74 random bits come from a splitmix64
// stream seeded with the seed (record --seed, kept in the manifest's seeds.commandIdSeed).
// Every seed (any int64) is a stream. The time field holds 0 to 2^48-1 ms: a clock start that
// would put one of the script's commandIds outside it is refused before the host is spawned
// (clock_start_problem), never wrapped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace msptk::script {

inline constexpr std::int64_t kDefaultCommandIdSeed = 7;
inline constexpr std::int64_t kMaxCommandIdTimeMs = 0xFFFFFFFFFFFF;  // the 48-bit time field

// Why `ids` commandIds minted from `clock_start_ms` would not fit the time field (their times
// are clock_start_ms .. clock_start_ms + ids - 1), or nullopt when they do.
std::optional<std::string> clock_start_problem(std::int64_t clock_start_ms, std::size_t ids);

class CommandIdMinter {
 public:
  CommandIdMinter(std::int64_t seed, std::int64_t clock_start_ms);
  std::string next();

 private:
  std::uint64_t random();
  std::uint64_t state_;
  std::uint64_t clock_ms_;
};

}  // namespace msptk::script
