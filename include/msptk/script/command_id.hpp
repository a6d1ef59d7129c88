// The CommandIdMinter gives a script's commands their params.commandId when the script leaves it
// out: UUIDv7 strings (RFC 9562) made from a seed, so the same script with the same seed mints the
// same ids. The 48-bit timestamp is the pinned clock start (--clock-start-ms) plus the number of
// ids minted before, so ids sort in minting order; the 74 random bits come from a splitmix64
// stream seeded with the seed (record --seed, kept in the manifest's seeds.commandIdSeed).
#pragma once

#include <cstdint>
#include <string>

namespace msptk::script {

inline constexpr std::int64_t kDefaultCommandIdSeed = 7;

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
